package io.coord.barrier;

import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * What an operator wants to know about one double barrier, read in one pass: its current
 * generation, who has arrived, who is missing, whether it is broken, and since when.
 *
 * @param name       the barrier's name
 * @param exists     false if the barrier was never used (every other field is then empty)
 * @param generation the current generation (1, 2, ...), 0 if none
 * @param phase      the current generation's phase
 * @param parties    how many members the current generation needs
 * @param since      when the generation entered {@code phase} (the server's clock), null if none
 * @param arrived    the members that entered the current generation, by arrival order
 * @param waitingFor how many members the phase still waits for: not yet arrived while
 *                   {@link Phase#OPEN}, not yet left while {@link Phase#READY}; 0 otherwise
 * @param missing    who is missing, by name, where the names are known: the members that have not
 *                   left while READY, the failed members once BROKEN; members that never arrived
 *                   have no name yet and are only counted in {@code waitingFor}
 * @param brokenIn   the phase the generation broke in ({@link Phase#OPEN} = during enter,
 *                   {@link Phase#READY} = during leave), null unless BROKEN
 * @param reason     why it broke, null unless BROKEN
 * @param foreign    children of the barrier's root that are not its generations (Curator
 *                   DistributedDoubleBarrier participants and {@code ready}, a typo'd node), by name:
 *                   {@code enter} refuses beside Curator's, and logs any other once
 */
public record BarrierStatus(String name, boolean exists, long generation, Phase phase, int parties, Instant since,
                            List<Arrival> arrived, int waitingFor, List<String> missing, Phase brokenIn, String reason,
                            List<String> foreign) {
    /**
     * The phases of one generation. Each moves forward only, decided once in ZooKeeper:
     * <pre>
     * OPEN ──all parties entered──▶ READY ──all parties left──▶ DONE          (terminal)
     * OPEN ──member ended / timeout / interrupt──▶ BROKEN                   (terminal)
     * READY ──member ended / timeout / interrupt──▶ BROKEN                  (terminal)
     * </pre>
     */
    public enum Phase {
        /** Members are entering; nobody has been let through. */
        OPEN,
        /** Every party entered and was let through; members are working or leaving. */
        READY,
        /** Terminal: every party left. The next {@code enter} starts the next generation. */
        DONE,
        /** Terminal: the generation failed; every waiter got {@link io.coord.BarrierBrokenException}. */
        BROKEN
    }

    /**
     * One member that entered the current generation.
     *
     * @param memberId  the member's name ({@link BarrierOptions#memberId()})
     * @param sequence  its arrival order in the generation (0 = first)
     * @param arrivedAt when its seat was created (the server's clock); null if its node is gone
     * @param left      whether it has left (called {@code leave})
     * @param present   whether its seat (ephemeral node) still exists
     */
    public record Arrival(String memberId, long sequence, Instant arrivedAt, boolean left, boolean present) {
        public Arrival {
            Objects.requireNonNull(memberId, "memberId");
        }
    }

    public BarrierStatus {
        Objects.requireNonNull(name, "name");
        arrived = List.copyOf(arrived);
        missing = List.copyOf(missing);
        foreign = List.copyOf(foreign);
        if (exists && phase == null) {
            throw new IllegalArgumentException("an existing barrier has a phase; got null for " + name);
        }
        if ((phase == Phase.BROKEN) != (brokenIn != null)) {
            throw new IllegalArgumentException("brokenIn is set exactly when the phase is BROKEN; phase=" + phase + ", brokenIn=" + brokenIn);
        }
    }

    /** Whether the current generation is broken (every waiter failed; late arrivals fail fast until a reset). */
    public boolean broken() {
        return phase == Phase.BROKEN;
    }

    /** A status of a barrier whose root holds only its generations. */
    public BarrierStatus(String name, boolean exists, long generation, Phase phase, int parties, Instant since,
                         List<Arrival> arrived, int waitingFor, List<String> missing, Phase brokenIn, String reason) {
        this(name, exists, generation, phase, parties, since, arrived, waitingFor, missing, brokenIn, reason, List.of());
    }

    static BarrierStatus absent(String name, List<String> foreign) {
        return new BarrierStatus(name, false, 0, null, 0, null, List.of(), 0, List.of(), null, null, foreign);
    }
}
