package io.coord.barrier;

import io.coord.barrier.BarrierStatus.Phase;
import java.util.List;

/**
 * The decision record of one generation: the data of the barrier's root node (for the current
 * generation) and of its {@code broken} marker. Every change of it is one compare-and-set on the
 * root node's version, so each generation's phase moves forward once and only one of two racing
 * decisions (READY against BROKEN, DONE against BROKEN) can ever commit.
 *
 * @param generation the generation number, from 1
 * @param phase      the phase
 * @param parties    how many members this generation needs
 * @param brokenIn   OPEN (broke during enter) or READY (during leave); null unless BROKEN
 * @param reason     one sentence saying why it broke; null unless BROKEN
 * @param failed     the failed or missing members, named ({@code worker-3 (#3)}) where known
 * @param by         the member that recorded the break, null unless BROKEN
 */
record GenerationRecord(long generation, Phase phase, int parties, Phase brokenIn, String reason, List<String> failed, String by) {
    GenerationRecord {
        if (generation < 1) {
            throw new IllegalArgumentException("generation must be >= 1, got " + generation);
        }
        if (phase == null) {
            throw new IllegalArgumentException("phase is null");
        }
        if (parties < 1) {
            throw new IllegalArgumentException("parties must be >= 1, got " + parties);
        }
        boolean broken = phase == Phase.BROKEN;
        if (broken != (brokenIn != null) || broken != (reason != null)) {
            throw new IllegalArgumentException("brokenIn and reason are set exactly when the phase is BROKEN; phase=" + phase
                    + ", brokenIn=" + brokenIn + ", reason=" + reason);
        }
        if (brokenIn != null && brokenIn != Phase.OPEN && brokenIn != Phase.READY) {
            throw new IllegalArgumentException("a generation breaks in OPEN or READY, not " + brokenIn);
        }
        failed = failed == null ? List.of() : List.copyOf(failed);
    }

    static GenerationRecord open(long generation, int parties) {
        return new GenerationRecord(generation, Phase.OPEN, parties, null, null, List.of(), null);
    }

    GenerationRecord ready() {
        return new GenerationRecord(generation, Phase.READY, parties, null, null, List.of(), null);
    }

    GenerationRecord done() {
        return new GenerationRecord(generation, Phase.DONE, parties, null, null, List.of(), null);
    }

    GenerationRecord broken(String why, List<String> failedMembers, String member) {
        return new GenerationRecord(generation, Phase.BROKEN, parties, phase, why, failedMembers, member);
    }

    boolean decided() {
        return phase != Phase.OPEN;
    }
}
