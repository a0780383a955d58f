package io.coord.chaos;

import java.time.Duration;

/**
 * How much each scenario does. Three profiles:
 * <ul>
 *   <li>{@code ci} (what {@code mvn verify} runs): the CI tier of RELIABILITY.md's matrix. Each
 *       scenario runs until its volume target is reached ({@link #volume}: cycles, leader changes,
 *       tasks, IDs, updates) <em>and</em> every fault of its CI-tier schedule ({@link #faults}) was
 *       applied, bounded by a maximum time ({@link #maxTime}); running out of time fails the run
 *       (the volume or the fault count falls short).
 *   <li>{@code short}: the old smoke profile, {@value #SHORT_SECONDS} s of workload per scenario
 *       and a handful of faults, no volume target ({@code -Dcoord.chaos.profile=short}; CI's second
 *       pass under CPU load may use it).
 *   <li>{@code long} ({@code ./coord chaos --duration}): a total duration split evenly across the
 *       scenarios, at least {@link #perScenario} each, with the CI tier's volumes and fault counts
 *       multiplied by how much longer than {@link #CI_NOMINAL} a share is (never less than the CI
 *       tier).
 * </ul>
 *
 * @param name         {@code ci}, {@code short} or {@code long}
 * @param perScenario  the time the faults are spread over; also the least workload time of a
 *                     {@code short} or {@code long} run
 * @param volumeFactor multiplier of the CI tier's volumes and fault counts; 0 for {@code short}
 *                     (time-driven, no volume target)
 */
public record Profile(String name, Duration perScenario, double volumeFactor) {
    public static final int SHORT_SECONDS = 20;
    /** About what one CI-tier scenario takes on 2 quiet cores; a long run's share is measured against it. */
    public static final Duration CI_NOMINAL = Duration.ofSeconds(120);

    public Profile {
        if (perScenario.compareTo(Duration.ofSeconds(10)) < 0) {
            throw new IllegalArgumentException("a scenario needs at least 10 s, got " + perScenario);
        }
        if (!(volumeFactor >= 0)) {
            throw new IllegalArgumentException("the volume factor must be >= 0, got " + volumeFactor);
        }
    }

    /** A time-driven profile (no volume target), as profiles were before the CI tier. */
    public Profile(String name, Duration perScenario) {
        this(name, perScenario, 0);
    }

    public static Profile shortProfile() {
        return new Profile("short", Duration.ofSeconds(SHORT_SECONDS), 0);
    }

    /** The CI tier: volume targets and fault counts of the matrix; faults spread from the warm-up on. */
    public static Profile ciTier() {
        return new Profile("ci", Duration.ofSeconds(SHORT_SECONDS), 1);
    }

    /**
     * {@code total} split over {@code scenarios} results (each control counts as one); each share
     * does at least the CI tier.
     */
    public static Profile longProfile(Duration total, int scenarios) {
        Duration share = total.dividedBy(Math.max(1, scenarios));
        return new Profile("long", share, Math.max(1.0, (double) share.toMillis() / CI_NOMINAL.toMillis()));
    }

    /** The profile {@code -Dcoord.chaos.profile} names ({@code ci}, the default, or {@code short}). */
    public static Profile named(String name) {
        return switch (name) {
            case "ci", "" -> ciTier();
            case "short" -> shortProfile();
            default -> throw new IllegalArgumentException("no chaos profile '" + name + "'; known: ci, short"
                    + " (a long run is ./coord chaos --duration)");
        };
    }

    /** Whether scenarios run to a volume target ({@code ci}, {@code long}) rather than for a fixed time ({@code short}). */
    public boolean volumeDriven() {
        return volumeFactor > 0;
    }

    /** The volume a scenario must reach: {@code ciTarget} scaled to this profile; 0 (none) for {@code short}. */
    public long volume(long ciTarget) {
        return Math.round(ciTarget * volumeFactor);
    }

    /** How many faults of a kind: {@code shortCount} in the short profile, {@code ciCount} scaled otherwise. */
    public int faults(int shortCount, int ciCount) {
        return volumeDriven() ? (int) Math.round(ciCount * volumeFactor) : shortCount;
    }

    /**
     * The least time a scenario's workload runs: {@link #perScenario} for {@code short} and
     * {@code long}, none for {@code ci} (it ends when volume and faults are done).
     */
    public Duration minimum() {
        return name.equals("ci") ? Duration.ZERO : perScenario;
    }

    /**
     * The most a scenario may take (before the timing factor) to reach its volume and apply its
     * faults, given what it takes at most in the CI tier; beyond it the run fails.
     */
    public Duration maxTime(Duration ciMax) {
        if (!volumeDriven()) {
            return perScenario.plus(Duration.ofSeconds(120));
        }
        Duration scaled = Duration.ofMillis(Math.round(ciMax.toMillis() * volumeFactor));
        return name.equals("ci") ? scaled : max(scaled, perScenario.plus(ciMax));
    }

    private static Duration max(Duration a, Duration b) {
        return a.compareTo(b) >= 0 ? a : b;
    }

    /**
     * {@code shortCount} faults scaled to this profile's length (at least {@code shortCount}), for
     * scenarios that give only a short-profile count. The short profile's faults, applied one at a
     * time, already run a little past its {@value #SHORT_SECONDS} s, so a long run scales by three
     * quarters of its length ratio to end near its duration.
     */
    public int scale(int shortCount) {
        double factor = Math.max(1.0, 0.75 * perScenario.toMillis() / (SHORT_SECONDS * 1000.0));
        return (int) Math.round(shortCount * factor);
    }

    /**
     * For scenarios whose CI-tier count is their base count: {@code shortCount} in the short profile
     * (CI's loaded second pass, which must fit its time budget), otherwise the CI tier's count times
     * the volume factor, as {@link #faults}. Not {@link #scale(int)}: that ratio is for a short
     * count filling 20 s; applied to a CI-tier count it gave discovery 295 faults (about 22 minutes)
     * in a 225 s share of a 30-minute run.
     */
    public int scale(int shortCount, int ciCount) {
        return name.equals("short") ? shortCount : faults(shortCount, ciCount);
    }
}
