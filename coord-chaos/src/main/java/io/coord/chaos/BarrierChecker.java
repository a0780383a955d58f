package io.coord.chaos;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The barrier scenario's invariants, checked on the controller's own times (invoke before the
 * command is sent, reply when the answer arrives) and on the creation zxids of the members'
 * markers. Pure: no ZooKeeper, so every rule has a unit test.
 *
 * <ul>
 *   <li><b>Nobody through enter early</b>: a member's {@code ENTERED} arrived after the controller
 *       sent {@code enter} to every member of the round (controller times), and its {@code in-}
 *       marker was created after every seat of the generation (zxids). In a round where a member
 *       fault breaks the entering, nobody may pass at all.
 *   <li><b>Nobody through leave early</b>: the same for {@code LEFT} against every {@code leave}
 *       sent, and every {@code out-} marker after every {@code pre-} marker.
 *   <li><b>Rounds isolated</b>: all members of a round report the same generation, and
 *       generations strictly increase from round to round.
 *   <li><b>Broken generations reported</b>: when a member is killed or paused past its session,
 *       every other waiter of that phase gets {@code BROKEN} (the expected outcome) within the
 *       bound after the fault; a late arrival at the broken generation is refused.
 *   <li><b>Every broken round reported in time</b>: also within the waiters' own timeout plus
 *       1 s after each was asked (for a barrier without failure detection, its timeout is all it has).
 *   <li><b>No break without a member fault</b>: in every other round (ensemble leader kills,
 *       spurious wake-ups and connection flaps included) every member passes, unless a member's session ended on its own during the
 *       round (on a starved machine a 2 s session can expire): then the break is correct, if
 *       every member of the phase got it. In no phase may some pass and others break, but for
 *       one case: an enter that counted the seat a member took on the session it then lost
 *       refuses that member only (it breaks the generation), and every other member must then
 *       get BROKEN in leave.
 * </ul>
 */
final class BarrierChecker {
    private BarrierChecker() {
    }

    enum Kind {
        PASSED,
        BROKEN,
        ERROR,
        /** No answer at all. */
        NONE
    }

    /**
     * One member's answer to one command.
     *
     * @param member      the member
     * @param invokeNanos when the controller sent the command
     * @param replyNanos  when the answer arrived (0 for {@link Kind#NONE})
     * @param kind        the answer
     * @param generation  the generation it reported (passed answers)
     * @param first       ENTERED: the seat's token (czxid); LEFT: the {@code pre-} marker's czxid
     * @param second      ENTERED: the {@code in-} marker's czxid; LEFT: the {@code out-} marker's czxid
     * @param text        the answer as printed, for problem reports
     */
    record Reply(String member, long invokeNanos, long replyNanos, Kind kind, long generation, long first, long second,
                 String text) {
        Reply {
            Objects.requireNonNull(member, "member");
            Objects.requireNonNull(kind, "kind");
        }
    }

    /** What kind of round it was. */
    enum Fault {
        /** No member fault (ensemble faults may still hit it): everyone must pass. */
        NONE,
        /** A member was killed (kill -9) while the others waited in enter. */
        KILL_IN_ENTER,
        /** A member was paused past its session while the others waited in enter. */
        PAUSE_IN_ENTER,
        /** A member was killed while the others waited in leave. */
        KILL_IN_LEAVE,
        /** F11: spurious wake-ups while all but one member waited in enter: everyone must pass, nobody early. */
        SPURIOUS_IN_ENTER,
        /** F11: spurious wake-ups while all but one member waited in leave: everyone must pass, nobody early. */
        SPURIOUS_IN_LEAVE,
        /** A member's connection was cut off for a moment (shorter than its session): everyone must pass. */
        FLAP;

        boolean breaksEnter() {
            return this == KILL_IN_ENTER || this == PAUSE_IN_ENTER;
        }

        boolean breaksLeave() {
            return this == KILL_IN_LEAVE;
        }
    }

    /**
     * One round.
     *
     * @param index      its number
     * @param fault      its fault
     * @param victim     the member fault's victim, or null
     * @param faultNanos when the member fault was applied (0 if none)
     * @param enters     the enter answers, the victim's included
     * @param leaves     the leave answers (empty if the round broke in enter)
     * @param late       answers of members sent {@code enter} only after the generation broke
     * @param sessionLosses members (not the victim) whose session ended during the round without an injected fault
     */
    record Round(int index, Fault fault, String victim, long faultNanos, List<Reply> enters, List<Reply> leaves, List<Reply> late,
                 List<String> sessionLosses) {
        Round {
            Objects.requireNonNull(fault, "fault");
            enters = List.copyOf(enters);
            leaves = List.copyOf(leaves);
            late = List.copyOf(late);
            sessionLosses = List.copyOf(sessionLosses);
        }

        /** A round without spontaneous session losses. */
        Round(int index, Fault fault, String victim, long faultNanos, List<Reply> enters, List<Reply> leaves, List<Reply> late) {
            this(index, fault, victim, faultNanos, enters, leaves, late, List.of());
        }
    }

    /**
     * The verdict; {@code brokenAsExpected} counts the BROKEN answers that were the expected outcome
     * of an injected fault, {@code brokenBySessionLoss} those explained by a session that ended on its own.
     */
    record Verdict(int rounds, int passedRounds, long earlyEnters, long earlyLeaves, long isolation, long lateBreaks, long hung,
                   long unexpectedBreaks, long brokenAsExpected, long brokenBySessionLoss, long slowestBreakNanos, List<String> problems) {
        Verdict {
            problems = List.copyOf(problems);
        }

        long violations() {
            return earlyEnters + earlyLeaves + isolation + lateBreaks + hung + unexpectedBreaks;
        }
    }

    static Verdict check(List<Round> rounds, long breakBoundNanos) {
        return check(rounds, breakBoundNanos, Long.MAX_VALUE / 2);
    }

    /**
     * The verdict on {@code rounds}: a waiter of a broken generation must learn it within
     * {@code breakBoundNanos} after the fault, and within {@code answerBoundNanos} (the waiters'
     * own timeout plus 1 s) after it was asked.
     */
    static Verdict check(List<Round> rounds, long breakBoundNanos, long answerBoundNanos) {
        List<String> p = new ArrayList<>();
        long earlyEnters = 0;
        long earlyLeaves = 0;
        long isolation = 0;
        long lateBreaks = 0;
        long hung = 0;
        long unexpected = 0;
        long expected = 0;
        long bySessionLoss = 0;
        long slowest = 0;
        int passed = 0;
        long lastGeneration = 0;
        for (Round r : rounds) {
            String at = "round " + r.index() + " (" + r.fault() + ")";
            // Enter.
            if (r.fault().breaksEnter()) {
                for (Reply e : r.enters()) {
                    boolean victim = e.member().equals(r.victim());
                    if (e.kind() == Kind.PASSED) {
                        earlyEnters++;
                        p.add(at + ": " + e.member() + " passed enter although " + r.victim() + " never could: " + e.text());
                    } else if (victim) {
                        if (e.kind() == Kind.BROKEN) {
                            expected++;
                        }
                    } else if (e.kind() == Kind.NONE) {
                        hung++;
                        p.add(at + ": waiter " + e.member() + " never learnt that the generation broke");
                    } else {
                        if (e.kind() == Kind.BROKEN) {
                            expected++;
                        } else {
                            unexpected++;
                            p.add(at + ": waiter " + e.member() + " failed otherwise than BROKEN: " + e.text());
                        }
                        long took = e.replyNanos() - r.faultNanos();
                        slowest = Math.max(slowest, took);
                        if (took > breakBoundNanos) {
                            lateBreaks++;
                            p.add(at + ": waiter " + e.member() + " learnt of the break " + took / 1_000_000 + " ms after the fault, over "
                                    + breakBoundNanos / 1_000_000 + " ms");
                        } else if (answeredLate(e, answerBoundNanos)) {
                            lateBreaks++;
                            p.add(at + ": waiter " + e.member() + " answered " + (e.replyNanos() - e.invokeNanos()) / 1_000_000
                                    + " ms after it was asked, over its timeout + 1 s (" + answerBoundNanos / 1_000_000 + " ms)");
                        }
                    }
                }
                for (Reply l : r.late()) {
                    if (l.kind() == Kind.PASSED) {
                        earlyEnters++;
                        p.add(at + ": late arrival " + l.member() + " passed into a broken generation: " + l.text());
                    } else if (l.kind() == Kind.BROKEN) {
                        expected++;
                        if (answeredLate(l, answerBoundNanos)) {
                            lateBreaks++;
                            p.add(at + ": late arrival " + l.member() + " was refused only " + (l.replyNanos() - l.invokeNanos()) / 1_000_000
                                    + " ms after it was asked, over its timeout + 1 s (" + answerBoundNanos / 1_000_000 + " ms)");
                        }
                    } else {
                        hung++;
                        p.add(at + ": late arrival " + l.member() + " was not refused: " + l.text());
                    }
                }
                continue;
            }
            Phase enter = phase(at, "enter", r.enters(), r.sessionLosses(), p);
            earlyEnters += enter.early();
            unexpected += enter.unexpected();
            hung += enter.hung();
            bySessionLoss += enter.explained();
            if (enter.countedLostSeat()) {
                // The generation let its parties in counting the seat a member took on the session
                // it lost; that member, back on a new session, broke it: every other member must
                // learn it in leave, and nobody may pass.
                Phase leave = brokenLeave(at, r, p);
                earlyLeaves += leave.early();
                unexpected += leave.unexpected();
                hung += leave.hung();
                bySessionLoss += leave.explained();
                continue;
            }
            if (!enter.allPassed()) {
                continue;
            }
            // Isolation: one generation per round, increasing.
            long gen = r.enters().get(0).generation();
            for (Reply e : r.enters()) {
                if (e.generation() != gen) {
                    isolation++;
                    p.add(at + ": members disagree on the generation: " + e.member() + " in " + e.generation() + ", "
                            + r.enters().get(0).member() + " in " + gen);
                }
            }
            if (gen <= lastGeneration) {
                isolation++;
                p.add(at + ": generation " + gen + " does not follow the previous round's " + lastGeneration);
            }
            lastGeneration = Math.max(lastGeneration, gen);
            // Leave.
            if (r.fault().breaksLeave()) {
                for (Reply l : r.leaves()) {
                    if (l.kind() == Kind.PASSED) {
                        earlyLeaves++;
                        p.add(at + ": " + l.member() + " passed leave although " + r.victim() + " never left: " + l.text());
                    } else if (l.kind() == Kind.NONE) {
                        hung++;
                        p.add(at + ": leaver " + l.member() + " never learnt that the generation broke");
                    } else {
                        if (l.kind() == Kind.BROKEN) {
                            expected++;
                        } else {
                            unexpected++;
                            p.add(at + ": leaver " + l.member() + " failed otherwise than BROKEN: " + l.text());
                        }
                        long took = l.replyNanos() - r.faultNanos();
                        slowest = Math.max(slowest, took);
                        if (took > breakBoundNanos) {
                            lateBreaks++;
                            p.add(at + ": leaver " + l.member() + " learnt of the break " + took / 1_000_000 + " ms after the fault, over "
                                    + breakBoundNanos / 1_000_000 + " ms");
                        } else if (answeredLate(l, answerBoundNanos)) {
                            lateBreaks++;
                            p.add(at + ": leaver " + l.member() + " answered " + (l.replyNanos() - l.invokeNanos()) / 1_000_000
                                    + " ms after it was asked, over its timeout + 1 s (" + answerBoundNanos / 1_000_000 + " ms)");
                        }
                    }
                }
                continue;
            }
            Phase leave = phase(at, "leave", r.leaves(), r.sessionLosses(), p);
            earlyLeaves += leave.early();
            unexpected += leave.unexpected();
            hung += leave.hung();
            bySessionLoss += leave.explained();
            if (leave.allPassed()) {
                passed++;
            }
        }
        return new Verdict(rounds.size(), passed, earlyEnters, earlyLeaves, isolation, lateBreaks, hung, unexpected, expected, bySessionLoss,
                slowest, p);
    }

    private static boolean answeredLate(Reply r, long boundNanos) {
        return r.replyNanos() - r.invokeNanos() > boundNanos;
    }

    /**
     * What one phase every member had to pass came to; {@code countedLostSeat}: an enter that let
     * some in and refused only members whose session ended on their own (their old seats were counted).
     */
    private record Phase(long early, long unexpected, long hung, long explained, boolean allPassed, boolean countedLostSeat) {
    }

    /**
     * The leave of a round whose enter {@linkplain Phase#countedLostSeat counted a lost seat}:
     * every member that passed enter was asked to leave and got BROKEN.
     */
    private static Phase brokenLeave(String at, Round r, List<String> p) {
        long early = 0;
        long unexpected = 0;
        long hung = 0;
        long explained = 0;
        long passers = r.enters().stream().filter(e -> e.kind() == Kind.PASSED).count();
        if (r.leaves().size() != passers) {
            unexpected++;
            p.add(at + ": " + passers + " members passed enter, " + r.leaves().size() + " were asked to leave");
        }
        for (Reply l : r.leaves()) {
            switch (l.kind()) {
                case BROKEN -> explained++;
                case PASSED -> {
                    early++;
                    p.add(at + ": " + l.member() + " passed leave of a generation that counted a lost seat: " + l.text());
                }
                case NONE -> {
                    hung++;
                    p.add(at + ": leaver " + l.member() + " never learnt that the generation broke");
                }
                default -> {
                    unexpected++;
                    p.add(at + ": leaver " + l.member() + " failed otherwise than BROKEN: " + l.text());
                }
            }
        }
        return new Phase(early, unexpected, hung, explained, false, false);
    }

    /**
     * A phase every member must pass: checks the order (controller times and marker zxids) and
     * that everyone passed; problems are added to {@code p}. If a member's session ended on its own
     * ({@code lost}), a phase in which every member got BROKEN is explained (a member's seat went
     * with its session), not unexpected; so is, in enter only, a BROKEN answer of a member in
     * {@code lost} while the others passed: the generation counted its seat from the old session
     * (the round's leave then decides, see {@link #brokenLeave}).
     */
    private static Phase phase(String at, String phase, List<Reply> replies, List<String> lost, List<String> p) {
        boolean sessionLost = !lost.isEmpty();
        long early = 0;
        long unexpected = 0;
        long hung = 0;
        long lastInvoke = Long.MIN_VALUE;
        long maxFirst = Long.MIN_VALUE;
        for (Reply r : replies) {
            lastInvoke = Math.max(lastInvoke, r.invokeNanos());
            if (r.kind() == Kind.PASSED) {
                maxFirst = Math.max(maxFirst, r.first());
            }
        }
        if (sessionLost && !replies.isEmpty() && replies.stream().allMatch(r -> r.kind() == Kind.BROKEN)) {
            return new Phase(0, 0, 0, replies.size(), false, false);
        }
        boolean somePassed = replies.stream().anyMatch(r -> r.kind() == Kind.PASSED);
        boolean countedLostSeat = phase.equals("enter") && somePassed && replies.stream().anyMatch(r -> r.kind() != Kind.PASSED)
                && replies.stream()
                .allMatch(r -> r.kind() == Kind.PASSED || r.kind() == Kind.BROKEN && lost.contains(r.member()));
        long explained = 0;
        for (Reply r : replies) {
            if (countedLostSeat && r.kind() == Kind.BROKEN) {
                explained++;
                continue;
            }
            if (r.kind() != Kind.PASSED) {
                if (r.kind() == Kind.NONE) {
                    hung++;
                } else {
                    unexpected++;
                }
                p.add(at + ": " + r.member() + " did not pass " + phase + (somePassed ? " while others did" : "")
                        + " in a round without a member fault: " + (r.kind() == Kind.NONE ? "no answer" : r.text()));
                continue;
            }
            boolean beforeLastInvoke = r.replyNanos() < lastInvoke;
            boolean markerTooOld = r.second() <= maxFirst;
            if (beforeLastInvoke) {
                p.add(at + ": " + r.member() + " returned from " + phase + " " + (lastInvoke - r.replyNanos()) / 1_000
                        + " µs before the last member was even asked to " + phase);
            }
            if (markerTooOld) {
                p.add(at + ": " + r.member() + "'s marker after " + phase + " (zxid 0x" + Long.toHexString(r.second())
                        + ") is older than another member's " + (phase.equals("enter") ? "seat" : "pre-leave marker") + " (zxid 0x"
                        + Long.toHexString(maxFirst) + ")");
            }
            if (beforeLastInvoke || markerTooOld) {
                early++;
            }
        }
        return new Phase(early, unexpected, hung, explained, !countedLostSeat && !replies.isEmpty() && unexpected == 0 && hung == 0,
                countedLostSeat);
    }
}
