package io.coord.bench;

import java.util.ArrayList;
import java.util.List;

/**
 * The sizes a scale benchmark runs at, from a system property holding a comma-separated list
 * ({@code -Dcoord.bench.lock.waiters=8,64,512}); {@code ./coord bench --scale} sets these, and
 * {@code BenchMainTest} sets tiny ones.
 */
final class Sizes {
    private Sizes() {
    }

    /**
     * The sizes in {@code property}, else in {@code defaults}.
     *
     * @throws IllegalArgumentException naming the property and the bad value, if an entry is not a
     *                                  whole number of at least {@code min}
     */
    static List<Integer> of(String property, String defaults, int min) {
        String spec = System.getProperty(property, defaults);
        List<Integer> sizes = new ArrayList<>();
        for (String part : spec.split(",")) {
            String s = part.trim();
            int n;
            try {
                n = Integer.parseInt(s);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(property + "=\"" + spec + "\": \"" + s + "\" is not a whole number", e);
            }
            if (n < min) {
                throw new IllegalArgumentException(property + "=\"" + spec + "\": " + n + " is below the smallest size, " + min);
            }
            sizes.add(n);
        }
        return List.copyOf(sizes);
    }
}
