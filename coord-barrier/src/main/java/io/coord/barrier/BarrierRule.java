package io.coord.barrier;

import io.coord.barrier.Generation.Members;
import io.coord.barrier.Generation.Seat;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The double barrier's decisions, pure: given what one read of ZooKeeper showed, what a waiter
 * does next. The ZooKeeper plumbing ({@link ZkDoubleBarrier}) only reads, calls this, and carries
 * out the step; after every event, spurious or not, it reads again and asks again, so an event can
 * never decide anything by itself.
 *
 * <p>The outcome of a generation is whatever its record says once it is decided; until then:
 * <ul>
 *   <li>enter: seats take sequence numbers 0, 1, 2, ... in arrival order. The generation is
 *       complete when seats 0 … parties-1 are all present, and the member holding seat parties-1
 *       (whose arrival completed it) records READY; a seat numbered parties or above is an extra
 *       and is refused. A seat withdrawn before the decision (a cancelled {@code enterAsync}: its
 *       {@code withdrawn} marker replaces it in one transaction) never came: the parties are the
 *       first {@code parties} seats not withdrawn, and its deletion is no vanished member. Any deletion among the seats before the decision means a member
 *       vanished (its session ended): the generation breaks.
 *   <li>leave: a member leaves by adding its left marker (its seat stays until the end). The
 *       generation is done when all parties have left; a seat gone without a left marker means a
 *       member vanished: the generation breaks.
 *   <li>a timeout or an interrupt of any waiter breaks the generation for everyone.
 * </ul>
 * Who watches what (so that a vanished member is always noticed by some live waiter, and no event
 * wakes everyone): while entering, seat 0 watches the children (it sees every arrival and every
 * departure) and every other seat watches the seat before it; while leaving, each member that left
 * watches the seats after it up to the next member that left, so every seat still in is watched
 * by exactly one waiter.
 */
final class BarrierRule {
    private BarrierRule() {
    }

    enum Action {
        /** The generation let everyone through (enter) or everyone left (leave): return. */
        RELEASED,
        /** Enter only: the generation is complete without this member (an extra). */
        REFUSED,
        /** The generation is broken: throw. */
        BROKEN,
        /** The record is undecided; read the members to decide. */
        READ_MEMBERS,
        /** Record READY (compare-and-set), admitting {@link Step#seats()}. */
        DECIDE_READY,
        /** Record DONE (compare-and-set). */
        DECIDE_DONE,
        /** Record BROKEN (compare-and-set) with {@link Step#why()} and {@link Step#failed()}. */
        BREAK,
        /** Leave only: add our left marker. */
        LEAVE,
        /** Nothing decided yet: watch {@link Step#seats()} (and the children if {@link Step#watchChildren()}), then wait. */
        WAIT
    }

    /** Why a waiter stops waiting by itself. */
    enum Cause {
        NONE, TIMEOUT, INTERRUPT
    }

    /**
     * The next step.
     *
     * @param action        what to do
     * @param seats         the seats to admit (DECIDE_READY) or to watch (WAIT)
     * @param watchChildren whether to watch the members' children too (WAIT)
     * @param failed        the sequences of the members that failed or are missing (BREAK)
     * @param why           what happened, for the record (BREAK)
     */
    record Step(Action action, List<Seat> seats, boolean watchChildren, List<Long> failed, String why) {
        Step {
            Objects.requireNonNull(action, "action");
            seats = List.copyOf(seats);
            failed = List.copyOf(failed);
            if ((action == Action.BREAK) != (why != null)) {
                throw new IllegalArgumentException("a reason is given exactly for BREAK; action=" + action + ", why=" + why);
            }
        }

        static Step of(Action action) {
            return new Step(action, List.of(), false, List.of(), null);
        }

        static Step breaking(String why, List<Long> failed) {
            return new Step(Action.BREAK, List.of(), false, failed, why);
        }
    }

    /**
     * A waiter in {@code enter}, holding seat {@code mySeq}, after reading the record and perhaps
     * the members ({@code members} null: not read yet).
     */
    static Step enter(GenerationRecord record, long mySeq, Members members, Cause cause) {
        switch (record.phase()) {
            case READY, DONE -> {
                return Step.of(mySeq < record.parties() ? Action.RELEASED : Action.REFUSED);
            }
            case BROKEN -> {
                return Step.of(Action.BROKEN);
            }
            case OPEN -> {
                // decided below
            }
        }
        if (members == null) {
            return Step.of(Action.READ_MEMBERS);
        }
        int parties = record.parties();
        // A seat gone shows in the count of deletions, or as a number below the newest arrival that
        // is neither a seat nor withdrawn (while OPEN, every number is a seat or a withdrawal's).
        if (members.vanished() > 0 || !members.present().containsKey(mySeq) || !vanished(members, members.arrivals()).isEmpty()) {
            List<Long> gone = vanished(members, Math.max(members.arrivals(), mySeq + 1));
            return Step.breaking(gone.isEmpty() ? members.vanished() + " member(s) vanished before all " + parties
                    + " arrived (their sessions ended)" : "member(s) vanished before all " + parties + " arrived (their sessions ended)", gone);
        }
        List<Seat> admitted = new ArrayList<>(parties);
        for (long s : members.admitted(parties)) {
            Seat seat = members.present().get(s);
            if (seat == null) {
                break;
            }
            admitted.add(seat);
        }
        if (admitted.size() == parties) {
            // The member whose seat completed the count (seat parties-1) records READY; the others
            // leave it to that member and watch its seat: if it vanishes before deciding, the next
            // read sees a deletion and breaks. A waiter whose own time is up decides itself.
            if (mySeq == admitted.get(parties - 1).seq() || cause != Cause.NONE) {
                return new Step(Action.DECIDE_READY, admitted, false, List.of(), null);
            }
            return new Step(Action.WAIT, List.of(admitted.get(parties - 1)), false, List.of(), null);
        }
        switch (cause) {
            case TIMEOUT -> {
                return Step.breaking("timed out waiting in enter: " + admitted.size() + " of " + parties + " arrived, "
                        + (parties - admitted.size()) + " never did", List.of());
            }
            case INTERRUPT -> {
                return Step.breaking("a waiter was interrupted in enter with " + admitted.size() + " of " + parties + " arrived",
                        List.of());
            }
            case NONE -> {
                // wait below
            }
        }
        // The first seat not withdrawn watches the children; every other one the seat before it.
        Seat before = members.present().get(members.before(mySeq));
        if (before == null) {
            return new Step(Action.WAIT, List.of(), true, List.of(), null);
        }
        return new Step(Action.WAIT, List.of(before), false, List.of(), null);
    }

    /**
     * A waiter in {@code leave}, holding admitted seat {@code mySeq}; {@code left} says whether its
     * left marker is in place, {@code seatLost} whether its seat is gone (its session ended).
     */
    static Step leave(GenerationRecord record, long mySeq, Members members, boolean left, boolean seatLost, Cause cause) {
        switch (record.phase()) {
            case DONE -> {
                return Step.of(Action.RELEASED);
            }
            case BROKEN -> {
                return Step.of(Action.BROKEN);
            }
            case OPEN -> throw new IllegalStateException("generation " + record.generation()
                    + " is OPEN although this member entered it: the barrier's records were changed by hand");
            case READY -> {
                // decided below
            }
        }
        int parties = record.parties();
        List<Long> admitted = members == null ? null : members.admitted(parties);
        if (admitted != null && !admitted.contains(mySeq)) {
            throw new IllegalStateException("seat #" + mySeq + " was never admitted to generation " + record.generation()
                    + " of " + parties + " parties");
        }
        if (!left) {
            if (seatLost) {
                return Step.breaking("its seat was lost (session ended) before it left", List.of(mySeq));
            }
            if (cause == Cause.TIMEOUT) {
                return Step.breaking("timed out before it could leave (no connection)", List.of(mySeq));
            }
            if (cause == Cause.INTERRUPT) {
                return Step.breaking("interrupted before it left", List.of(mySeq));
            }
            return Step.of(Action.LEAVE);
        }
        if (members == null) {
            return Step.of(Action.READ_MEMBERS);
        }
        List<Long> dead = new ArrayList<>();
        List<Long> notLeft = new ArrayList<>();
        for (long s : admitted) {
            if (!members.left().contains(s)) {
                notLeft.add(s);
                if (!members.present().containsKey(s)) {
                    dead.add(s);
                }
            }
        }
        if (!dead.isEmpty()) {
            return Step.breaking("member(s) vanished without leaving (their sessions ended)", dead);
        }
        if (notLeft.isEmpty()) {
            return Step.of(Action.DECIDE_DONE);
        }
        switch (cause) {
            case TIMEOUT -> {
                return Step.breaking("timed out waiting in leave: " + notLeft.size() + " of " + parties + " did not leave", notLeft);
            }
            case INTERRUPT -> {
                return Step.breaking("a waiter was interrupted in leave with " + notLeft.size() + " of " + parties + " not left",
                        notLeft);
            }
            case NONE -> {
                // wait below
            }
        }
        // Watch the seats after ours (cyclically) up to the next member that left: together the
        // members that left cover every seat still in, each seat exactly once.
        List<Seat> watch = new ArrayList<>();
        int mine = admitted.indexOf(mySeq);
        for (int i = 1; i < parties; i++) {
            long s = admitted.get((mine + i) % parties);
            if (members.left().contains(s)) {
                break;
            }
            watch.add(members.present().get(s));
        }
        return new Step(Action.WAIT, watch, false, List.of(), null);
    }

    /** Sequences below {@code arrivals} with neither a seat nor a left marker. */
    static List<Long> vanished(Members members, long arrivals) {
        List<Long> gone = new ArrayList<>();
        for (long s = 0; s < arrivals; s++) {
            if (!members.present().containsKey(s) && !members.left().contains(s) && !members.withdrawn().contains(s)) {
                gone.add(s);
            }
        }
        return gone;
    }
}
