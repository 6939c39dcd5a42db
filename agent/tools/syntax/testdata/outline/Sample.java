package com.example.app;

import java.util.*;
import static java.lang.Math.max;

/** Javadoc: class Fake { void nope() {} } */
@SuppressWarnings({"unchecked", "rawtypes"})
public final class Service<T extends Comparable<T>> extends Base implements Runnable, Closeable {
    private static final String QUERY = """
        SELECT * FROM t WHERE x = '}' -- class Nope {
        """;
    private final Map<String, List<T>> cache = new HashMap<>();
    protected int a, b = 2;
    char c = '{';
    private Runnable task = new Runnable() {
        @Override public void run() { System.out.println("}"); }
    };
    int[] table = {1, 2, 3};

    static { init(); }

    public Service(int size) throws IOException {
        super(size);
    }

    @Override
    public void run() {
        Comparator<String> cmp = (x, y) -> { return x.compareTo(y); };
    }

    public <R> R apply(Function<? super T, ? extends R> fn) { return fn.apply(null); }

    abstract String name();

    public sealed interface Shape permits Circle, Square {
        double area();
        default String label() { return "shape"; }
    }

    public record Circle(double r) implements Shape {
        public Circle {
            if (r < 0) throw new IllegalArgumentException();
        }
        public double area() { return Math.PI * r * r; }
    }

    enum Level {
        LOW("l") { @Override String code() { return "L"; } },
        HIGH("h");
        private final String tag;
        Level(String tag) { this.tag = tag; }
        String code() { return tag; }
    }

    @interface Marker { String value() default ""; }
}
