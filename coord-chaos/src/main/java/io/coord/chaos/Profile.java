package io.coord.chaos;

import java.time.Duration;

/**
 * How long each scenario's workload runs. {@code short} (in {@code mvn verify}) gives each
 * scenario {@value #SHORT_SECONDS} s; {@code long} splits a total duration evenly across the
 * scenarios run. Scenarios scale their fault counts with {@link #scale} so a long run has the same
 * fault rate, and more faults.
 */
public record Profile(String name, Duration perScenario) {
    public static final int SHORT_SECONDS = 20;

    public Profile {
        if (perScenario.compareTo(Duration.ofSeconds(10)) < 0) {
            throw new IllegalArgumentException("a scenario needs at least 10 s, got " + perScenario);
        }
    }

    public static Profile shortProfile() {
        return new Profile("short", Duration.ofSeconds(SHORT_SECONDS));
    }

    /** {@code total} split over {@code scenarios} results (lock counts twice: it runs its control too). */
    public static Profile longProfile(Duration total, int scenarios) {
        return new Profile("long", total.dividedBy(Math.max(1, scenarios)));
    }

    /**
     * {@code shortCount} faults scaled to this profile's length (at least {@code shortCount}). The
     * short profile's faults, applied one at a time, already run a little past its
     * {@value #SHORT_SECONDS} s, so a long run scales by three quarters of its length ratio to end
     * near its duration.
     */
    public int scale(int shortCount) {
        double factor = Math.max(1.0, 0.75 * perScenario.toMillis() / (SHORT_SECONDS * 1000.0));
        return (int) Math.round(shortCount * factor);
    }
}
