// Copyright: class Fake { void nope(); };
#include <vector>
#include "config.h"
#define MAX(a, b) ((a) > (b) ? \
                   (a) : (b))
#define VERSION "1.0 { not a brace"
#ifdef __cplusplus
extern "C" {
#endif
int c_api(const char *s);
#ifdef __cplusplus
}
#endif

static const int kLimit = 1'000'000;
const char *raw = R"json({"key": "value } ;"})json";
char quote = '"', brace = '{';

namespace app::detail {

template <typename T, class U = std::vector<T>>
class Buffer final : public Base<T>, private Noncopyable {
  Q_OBJECT
public:
  explicit Buffer(size_t n) : size_(n), data_{new T[n]}, other_(n) {}
  ~Buffer() override;
  Buffer &operator=(const Buffer &) = delete;
  bool operator==(const Buffer &o) const { return size_ == o.size_; }
  T &operator[](size_t i) { return data_[i]; }
  void operator()(int x) const;
  explicit operator bool() const noexcept { return size_ != 0; }
  virtual void run() = 0;
  template <class F> auto map(F f) -> Buffer<decltype(f(T{}))>;
  static constexpr int kDefault = 8;
private slots:
  void onTimer();
private:
  size_t size_;
  T *data_ = nullptr;
  int bits : 4;
  int other_{0};
  void (*callback_)(int);
};

enum class Color : uint8_t { Red, Green = 2, Blue };
struct Point { int x, y; };
typedef struct { double re, im; } Complex;
typedef void (*handler_t)(int sig);
using Map = std::map<std::string, int>;

template <typename T>
Buffer<T>::~Buffer() { delete[] data_; }

void Buffer<int>::run() {
  if (size_ > 0) { for (;;) {} }
}

}  // namespace app::detail

struct stat *lookup(const char *path);
int main(int argc, char **argv) {
  auto lambda = [&](int x) { return x + 1; };
  return lambda(argc);
}
