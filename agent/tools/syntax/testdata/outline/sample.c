/* sample.c: a C file with the usual traps. int fake(void) { } */
#include <stdio.h>
#include<stdlib.h>
#define SQUARE(x) ((x) * (x))
#define GREETING "hello, /* not a comment */ world"
#define MULTI_LINE(a, b) \
	do {                 \
		(a) = (b);       \
	} while (0)

typedef enum { RED, GREEN = 5, BLUE } color_t;
typedef unsigned long size_type;
typedef int (*compare_fn)(const void *, const void *);

struct node {
	int value;
	struct node *next;
	union {
		int i;
		float f;
	} u;
	unsigned flags : 3;
};

static const char *names[] = { "a}", "b{", NULL };
static char quote = '\'', brace = '}';
int counter = 0;
extern int errno_value;

struct node *node_new(int value);
static inline int max(int a, int b) { return a > b ? a : b; }

static int
compare_ints(const void *a, const void *b)
{
	const int *x = a, *y = b;
	if (*x < *y) { return -1; }
	return *x > *y; /* } */
}

void (*signal_handler(int sig, void (*fn)(int)))(int);

int main(int argc, char *argv[]) {
	struct node n = { .value = 1, .next = NULL };
	printf("%s %d\n", "main() {", SQUARE(argc));
	qsort(names, 2, sizeof names[0], compare_ints);
	return 0;
}
