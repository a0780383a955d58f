package io.coord.chaos;

import io.coord.BarrierBrokenException;
import io.coord.barrier.BarrierStatus;
import io.coord.barrier.DoubleBarrier;
import io.coord.chaos.BarrierChecker.Fault;
import io.coord.chaos.BarrierChecker.Kind;
import io.coord.chaos.BarrierChecker.Reply;
import io.coord.test.Awaits;
import io.coord.test.History;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.zookeeper.KeeperException;

/**
 * Chaos scenario "barrier", at the reliability matrix's CI tier: {@value #MEMBERS} member JVMs
 * ({@link BarrierMember}) run at least {@value #ROUNDS} rounds of one double barrier. In
 * {@value #SPURIOUS} of them, while all but one member wait (in enter or in leave), every waiter
 * gets spurious wake-ups (F11: watch events that did not happen and a Disconnected/SyncConnected
 * flap); in {@value #FLAPS} a member's connection is cut off for {@link #FLAP} (shorter than its
 * session); and {@value #KILLS} times a member is killed (kill -9) while the others wait in enter
 * or in leave ({@link FaultKind#KILL_BUSY}, alternately). Also one member paused past its session
 * while the others wait in enter ({@link FaultKind#PAUSE_BUSY}) and one ZooKeeper leader kill.
 * The member faults are applied by the round loop (the fault runner's hook hands them over and
 * waits), since only it knows when the others wait; spurious wake-ups and flaps are the round
 * loop's own. {@link BarrierChecker} checks that nobody got through early, that rounds stay
 * isolated, that every waiter of a broken generation got {@code BarrierBrokenException} within the
 * session timeout plus {@link #MARGIN} after the fault and within its timeout plus 1 s after it was
 * asked, and that every other round passed; whoever passed enter is asked to leave (also when
 * another member was refused: a generation that counted the seat of a member's lost session),
 * and after a broken round the barrier is reset.
 *
 * <p>The <b>control</b> ({@code barrier-control}) runs the same kinds of faults, fewer of them,
 * against Curator's {@code DistributedDoubleBarrier}; it must show at least one violation (a
 * spurious wake-up lets a waiter out of Curator's enter early, GH-1290), or the schedule proves
 * nothing.
 *
 * <p>History: {@code enter} and {@code leave} per member (invoked before the command is sent; ok
 * when it passed, fail when BROKEN, info otherwise).
 */
final class BarrierScenario implements Scenario {
    /** What "within the session timeout" may add: the expiry check, the watch, one read and the break. */
    static final Duration MARGIN = Duration.ofSeconds(3);
    static final int MEMBERS = 5;
    static final int ROUNDS = 500;
    static final int SPURIOUS = 100;
    static final int FLAPS = 50;
    static final int KILLS = 5;
    /** The control's share of the volumes: enough for Curator's early release to show, in a fraction of the time. */
    private static final int CONTROL_DIVISOR = 10;
    /** A connection flap: the member's proxy refuses and resets connections this long. */
    static final Duration FLAP = Duration.ofMillis(300);
    /** After the spurious wake-ups, how long the waiters have to (wrongly) get out before the last member arrives. */
    private static final Duration SPURIOUS_HOLD = Duration.ofMillis(150);
    private static final String BARRIER = "rounds";
    private static final String MARKERS = "/markers";

    @Override
    public String name() {
        return "barrier";
    }

    @Override
    public List<String> controls() {
        return List.of("barrier-control");
    }

    /** How much of everything one run does. */
    private record Volume(int rounds, int spurious, int flaps, Map<FaultKind, Integer> faults) {
        int faultCount() {
            return faults.values().stream().mapToInt(Integer::intValue).sum();
        }
    }

    @Override
    public List<ChaosResult> run(ChaosSuite.Run run) throws InterruptedException {
        Profile p = run.profile();
        Map<FaultKind, Integer> counts = new EnumMap<>(FaultKind.class);
        // The short profile (CI's loaded second pass) does a fifth of the CI tier's volume.
        counts.put(FaultKind.KILL_BUSY, p.faults(2, KILLS));
        counts.put(FaultKind.PAUSE_BUSY, p.faults(1, 1));
        counts.put(FaultKind.KILL_ZK_LEADER, p.faults(1, 1));
        Volume full = new Volume(p.faults(ROUNDS / 5, ROUNDS), p.faults(SPURIOUS / 5, SPURIOUS), p.faults(FLAPS / 5, FLAPS), counts);
        Map<FaultKind, Integer> fewer = new EnumMap<>(FaultKind.class);
        fewer.put(FaultKind.KILL_BUSY, Math.max(1, counts.get(FaultKind.KILL_BUSY) / CONTROL_DIVISOR));
        // The control never does less than the CI tier's control: fewer spurious wake-ups may not bite.
        Volume control = new Volume(Math.max(ROUNDS, full.rounds()) / CONTROL_DIVISOR, Math.max(SPURIOUS, full.spurious()) / CONTROL_DIVISOR,
                Math.max(FLAPS, full.flaps()) / CONTROL_DIVISOR, fewer);
        List<ChaosResult> results = new ArrayList<>();
        ChaosContext ctx = run.context("barrier");
        long roundSeed = ctx.random().nextLong();
        results.add(new Rounds(ctx, full, roundSeed, false).run());
        if (run.controls()) {
            results.add(new Rounds(run.context("barrier-control"), control, roundSeed, true).run());
        }
        return results;
    }

    /** A line and when the controller received it. */
    private record Line(String text, long nanos) {
        String id() {
            String[] f = text.split(" ", 3);
            return f.length > 1 ? f[1] : "";
        }
    }

    /** A member: its link, the lines read from it, and the lines that came for another command than the one awaited. */
    private record Member(WorkerLink link, BlockingQueue<Line> inbox, Map<String, Line> early, Thread pump) {
        String name() {
            return link.name();
        }
    }

    /** A member fault handed from the fault runner's thread to the round loop. */
    private record Request(FaultPlan.Fault fault, CompletableFuture<Boolean> applied) {
    }

    /** A command sent: its id, when, and its history operation. */
    private record Sent(String id, long nanos, History.Handle op) {
    }

    /** One run of the rounds: Coord's barrier, or the control on Curator's. */
    private static final class Rounds {
        private final ChaosContext ctx;
        private final Volume volume;
        private final Random kinds;
        private final boolean control;
        private final Duration maxWait = Awaits.scaled(Duration.ofSeconds(10));
        private final List<Member> members = new ArrayList<>();
        /** Started with the members, idle until one replaces a killed member: a fresh JVM takes seconds to start. */
        private final List<Member> spares = new ArrayList<>();
        private final BlockingQueue<Request> requests = new LinkedBlockingQueue<>();
        private volatile boolean stop;
        private int killsBusy;
        private int spuriousApplied;
        private int flapsApplied;
        private int spuriousAttempts;

        Rounds(ChaosContext ctx, Volume volume, long roundSeed, boolean control) {
            this.ctx = ctx;
            this.volume = volume;
            this.kinds = new Random(roundSeed);
            this.control = control;
        }

        ChaosResult run() throws InterruptedException {
            FaultPlan plan = FaultPlan.of(ctx.random(), planLength(), volume.faults());
            ctx.out().println("CHAOS-PLAN " + ctx.name() + " rounds>=" + volume.rounds() + " spurious=" + volume.spurious() + " flaps="
                    + volume.flaps() + " " + plan);
            try {
                // At most two spares: a long run's many kills must not start a crowd of JVMs at once.
                return runWith(plan, Math.min(2, volume.faults().getOrDefault(FaultKind.KILL_BUSY, 0)));
            } finally {
                stop = true;
                for (Member m : members) {
                    m.pump().join(2_000);
                }
                for (Member m : spares) {
                    m.pump().join(2_000);
                }
            }
        }

        /** The member faults are spread over about the time the rounds take on a quiet machine. */
        private Duration planLength() {
            return Duration.ofMillis(Math.max(ctx.length().toMillis(), volume.rounds() * 150L));
        }

        private ChaosResult runWith(FaultPlan plan, int spareCount) throws InterruptedException {
            for (WorkerLink w : ctx.startWorkers("barrier", MEMBERS + spareCount, args())) {
                (members.size() < MEMBERS ? members : spares).add(adopt(w));
            }
            List<BarrierChecker.Round> rounds = new ArrayList<>();
            long start = System.nanoTime();
            long hardEnd = start + Awaits.scaled(Duration.ofMillis(volume.rounds() * 600L + 120_000)).toNanos();
            // The fault runner starts at once, its first fault after FaultPlan.WARMUP; the round
            // loop's own faults wait as long: the warm-up rate (the floor's reference) is fault-free.
            FaultRunner faults = ctx.startFaults(plan, this::handOver);
            long stuck = 0;
            int round = 0;
            int spuriousLeft = volume.spurious();
            int flapsLeft = volume.flaps();
            while ((round < volume.rounds() || spuriousLeft > 0 || flapsLeft > 0 || !faults.isDone() || !requests.isEmpty())
                    && System.nanoTime() < hardEnd) {
                Request request = requests.poll();
                BarrierChecker.Round r;
                if (request != null) {
                    r = faultRound(round, request);
                } else if (System.nanoTime() - start < FaultPlan.WARMUP.toNanos()) {
                    r = plainRound(round, Fault.NONE, null);
                } else {
                    int left = Math.max(1, volume.rounds() - round);
                    int draw = kinds.nextInt(left);
                    if (draw < spuriousLeft) {
                        r = spuriousRound(round, spuriousAttempts++ % 2 == 0);
                        if (r.fault() != Fault.NONE) {
                            spuriousLeft--;
                            spuriousApplied++;
                        }
                    } else if (draw < spuriousLeft + flapsLeft) {
                        r = plainRound(round, Fault.FLAP, members.get(kinds.nextInt(members.size())));
                        flapsLeft--;
                        flapsApplied++;
                    } else {
                        r = plainRound(round, Fault.NONE, null);
                    }
                }
                rounds.add(r);
                if (r.fault().breaksEnter() || r.fault().breaksLeave() || !allPassed(r)) {
                    // A broken generation stays broken until reset: start the next one.
                    reset();
                }
                boolean silent = r.enters().stream().anyMatch(e -> e.kind() == Kind.NONE && !e.member().equals(r.victim()))
                        || r.leaves().stream().anyMatch(e -> e.kind() == Kind.NONE);
                if (silent && !control) {
                    stuck++;
                    break; // a member stopped answering: nothing after this would be meaningful
                }
                // (the control goes on: a Curator waiter that never answers is one of its violations,
                // counted as hung, and the next command runs on a fresh thread and a fresh barrier)
                round++;
            }
            boolean finished = faults.await(Awaits.scaled(Duration.ofSeconds(60)));
            if (!finished) {
                ctx.out().println("CHAOS-NOTE " + ctx.name() + " the fault schedule did not finish in time");
            }
            Request left;
            while ((left = requests.poll()) != null) {
                left.applied().complete(false);
            }
            faults.notes().forEach(n -> ctx.out().println("CHAOS-NOTE " + ctx.name() + " " + n));
            if (round < volume.rounds()) {
                ctx.out().println("CHAOS-NOTE " + ctx.name() + " ran " + round + " rounds, short of " + volume.rounds());
            }

            long bound = ctx.negotiatedSession().plus(MARGIN).toNanos();
            long answerBound = maxWait.plusSeconds(1).toNanos();
            BarrierChecker.Verdict v = BarrierChecker.check(rounds, bound, answerBound);
            v.problems().forEach(pr -> ctx.out().println("CHAOS-NOTE " + ctx.name() + " " + pr));
            History h = ctx.history();
            ctx.out().println("CHAOS-TIMELINE " + ctx.name() + " " + Progress.timeline(h));
            Map<String, Object> d = new LinkedHashMap<>();
            d.put("rounds", v.rounds());
            d.put("rounds-target", volume.rounds());
            d.put("passed-rounds", v.passedRounds());
            d.put("spurious", spuriousApplied);
            d.put("flaps", flapsApplied);
            d.put("early-enters", v.earlyEnters());
            d.put("early-leaves", v.earlyLeaves());
            d.put("isolation", v.isolation());
            d.put("unexpected-breaks", v.unexpectedBreaks());
            d.put("late-breaks", v.lateBreaks());
            d.put("hung", v.hung());
            d.put("broken-as-expected", v.brokenAsExpected());
            d.put("broken-by-session-loss", v.brokenBySessionLoss());
            d.put("slowest-break-ms", v.slowestBreakNanos() / 1_000_000);
            d.put("break-bound-ms", bound / 1_000_000);
            d.put("answer-bound-ms", answerBound / 1_000_000);
            // Spurious wake-ups and flaps count as faults: scheduled is the target, applied what was done.
            int scheduled = faults.scheduled() + volume.spurious() + volume.flaps();
            int applied = faults.applied() + spuriousApplied + flapsApplied;
            // Rounds short of the target are a run that did not reach the matrix: it fails like a stuck one.
            long shortfall = round < volume.rounds() ? 1 : 0;
            return new ChaosResult(ctx.name(), control, h.counts().ok(), scheduled, applied, v.violations(), 0, stuck + shortfall,
                    Progress.of(h, ChaosContext.SETTLE), d);
        }

        private String[] args() {
            return new String[] {BARRIER, Integer.toString(MEMBERS), MARKERS, Long.toString(maxWait.toMillis()), control ? "curator" : "coord"};
        }

        /** The fault runner's hook: hands a member fault to the round loop and waits (bounded) until it was applied. */
        private boolean handOver(FaultPlan.Fault fault, Duration bound) throws InterruptedException {
            Request r = new Request(fault, new CompletableFuture<>());
            requests.add(r);
            try {
                return r.applied().get(bound.toMillis(), TimeUnit.MILLISECONDS);
            } catch (ExecutionException e) {
                ctx.out().println("CHAOS-NOTE " + ctx.name() + " " + fault + " failed: " + e.getCause());
                return false;
            } catch (TimeoutException e) {
                requests.remove(r);
                return false;
            }
        }

        private BarrierChecker.Round faultRound(int round, Request request) throws InterruptedException {
            try {
                BarrierChecker.Round r = switch (request.fault().kind()) {
                    case KILL_BUSY -> killsBusy++ % 2 == 0 ? breakInEnter(round, Fault.KILL_IN_ENTER, request.fault().pick())
                            : breakInLeave(round, request.fault().pick());
                    case PAUSE_BUSY -> breakInEnter(round, Fault.PAUSE_IN_ENTER, request.fault().pick());
                    default -> throw new IllegalStateException("barrier has no hook for " + request.fault().kind());
                };
                request.applied().complete(r.fault() != Fault.NONE);
                return r;
            } catch (RuntimeException | InterruptedException e) {
                request.applied().completeExceptionally(e);
                throw e;
            }
        }

        private static boolean allPassed(BarrierChecker.Round r) {
            return !r.leaves().isEmpty() && r.enters().stream().allMatch(e -> e.kind() == Kind.PASSED)
                    && r.leaves().stream().allMatch(e -> e.kind() == Kind.PASSED);
        }

        private long phaseDeadline() {
            return deadlineAfter(maxWait.plusSeconds(10));
        }

        /**
         * Everyone enters, then everyone leaves; with {@code fault} FLAP, {@code flapped}'s
         * connection is cut off for a moment right after it was sent {@code enter} (even rounds)
         * or {@code leave} (odd ones).
         */
        private BarrierChecker.Round plainRound(int round, Fault fault, Member flapped) throws InterruptedException {
            List<Member> all = List.copyOf(members);
            Map<String, Long> sessions = sessions(all);
            Map<String, Sent> sent = send(all, "enter", round);
            if (fault == Fault.FLAP && round % 2 == 0) {
                flap(flapped);
            }
            List<Reply> enters = collect(all, sent, "enter", phaseDeadline());
            List<Reply> leaves;
            if (enters.stream().allMatch(e -> e.kind() == Kind.PASSED)) {
                sent = send(all, "leave", round);
                if (fault == Fault.FLAP && round % 2 == 1) {
                    flap(flapped);
                }
                leaves = collect(all, sent, "leave", phaseDeadline());
            } else {
                leaves = passersLeave(all, enters, round);
            }
            return finished(round, fault, flapped == null ? null : flapped.name(), all, sessions, enters, leaves);
        }

        /**
         * The leave of every member of {@code all} that passed {@code enters} (all of them, or
         * none, or, when a member was refused a generation that counted the seat of its lost
         * session, the others): a member that passed enter holds a seat until it leaves, and a
         * member still holding one cannot enter the next round.
         */
        private List<Reply> passersLeave(List<Member> all, List<Reply> enters, int round) {
            List<Member> passed = all.stream()
                    .filter(m -> enters.stream().anyMatch(e -> e.member().equals(m.name()) && e.kind() == Kind.PASSED))
                    .toList();
            return passed.isEmpty() ? List.of() : collect(passed, send(passed, "leave", round), "leave", phaseDeadline());
        }

        private void flap(Member m) throws InterruptedException {
            try (History.FaultWindow w = ctx.history().fault("flap " + m.name())) {
                m.link().proxy().refuse();
                try {
                    Awaits.hold(FLAP);
                } finally {
                    m.link().proxy().accept();
                }
            }
        }

        /**
         * F11: all but one member enter (or, after everyone entered, leave); once they all wait,
         * each of them gets spurious wake-ups; then, after a moment in which an early release
         * would show, the last member is let in (or out). Nobody may have returned before.
         */
        private BarrierChecker.Round spuriousRound(int round, boolean inEnter) throws InterruptedException {
            List<Member> all = List.copyOf(members);
            Map<String, Long> sessions = sessions(all);
            Member held = all.get(kinds.nextInt(all.size()));
            List<Member> waiting = new ArrayList<>(all);
            waiting.remove(held);
            Fault fault = inEnter ? Fault.SPURIOUS_IN_ENTER : Fault.SPURIOUS_IN_LEAVE;
            List<Reply> enters;
            List<Reply> leaves = List.of();
            if (inEnter) {
                Map<String, Sent> sent = send(waiting, "enter", round);
                if (!awaitArrived(waiting.size(), "all but one entered")) {
                    fault = Fault.NONE;
                } else {
                    wake(waiting, round);
                }
                sent.putAll(send(List.of(held), "enter", round));
                enters = collect(all, sent, "enter", phaseDeadline());
                leaves = passersLeave(all, enters, round);
            } else {
                enters = collect(all, send(all, "enter", round), "enter", phaseDeadline());
                if (enters.stream().allMatch(e -> e.kind() == Kind.PASSED)) {
                    Map<String, Sent> sent = send(waiting, "leave", round);
                    if (!awaitLeft(waiting.size(), enters.get(0).generation(), "all but one left")) {
                        fault = Fault.NONE;
                    } else {
                        wake(waiting, round);
                    }
                    sent.putAll(send(List.of(held), "leave", round));
                    leaves = collect(all, sent, "leave", phaseDeadline());
                } else {
                    fault = Fault.NONE;
                    leaves = passersLeave(all, enters, round);
                }
            }
            return finished(round, fault, held.name(), all, sessions, enters, leaves);
        }

        /** Sends every waiter its spurious wake-ups, waits (bounded) until each injected them, then holds a moment. */
        private void wake(List<Member> waiting, int round) throws InterruptedException {
            // A seat shows before its member is inside its wait: give the last one a moment to get there.
            Awaits.hold(Duration.ofMillis(50));
            String id = round + "s";
            for (Member m : waiting) {
                m.link().send("spurious " + id);
            }
            long deadline = deadlineAfter(Awaits.scaled(Duration.ofSeconds(10)));
            for (Member m : waiting) {
                take(m, id, deadline);
            }
            Awaits.hold(SPURIOUS_HOLD);
        }

        /**
         * The round as it came out; if it did not pass, the members whose session ended on its own
         * meanwhile (a new session reported within the session timeout plus 2 s) are recorded with
         * it: they explain a break.
         */
        private BarrierChecker.Round finished(int round, Fault fault, String victim, List<Member> all, Map<String, Long> sessions,
                                              List<Reply> enters, List<Reply> leaves) throws InterruptedException {
            BarrierChecker.Round r = new BarrierChecker.Round(round, fault, victim, 0, enters, leaves, List.of());
            if (allPassed(r)) {
                return r;
            }
            long deadline = System.nanoTime() + ctx.negotiatedSession().plusSeconds(2).toNanos();
            List<String> lost = List.of();
            while (lost.isEmpty() && System.nanoTime() < deadline) {
                Map<String, Long> now = sessions(all);
                lost = all.stream().map(Member::name).filter(n -> !Objects.equals(sessions.get(n), now.get(n))).toList();
                if (lost.isEmpty()) {
                    TimeUnit.MILLISECONDS.sleep(50); // polling the members' session reports, bounded by the deadline
                }
            }
            if (!lost.isEmpty()) {
                ctx.out().println("CHAOS-NOTE " + ctx.name() + " round " + round + ": session(s) ended without an injected fault: " + lost);
            }
            return new BarrierChecker.Round(round, fault, victim, 0, enters, leaves, List.of(), lost);
        }

        /** Each member's session id as it last reported it. */
        private static Map<String, Long> sessions(List<Member> of) {
            Map<String, Long> out = new HashMap<>();
            for (Member m : of) {
                out.put(m.name(), m.link().session().map(WorkerLink.SessionInfo::id).orElse(0L));
            }
            return out;
        }

        /**
         * A victim and all but one other member enter; once they all wait, the victim is killed or
         * paused past its session. Every waiter must be told the generation broke; then the member held
         * back arrives late and must be refused.
         */
        private BarrierChecker.Round breakInEnter(int round, Fault fault, int pick) throws InterruptedException {
            Map<String, Long> sessions = sessions(members);
            Member victim = members.get(pick % members.size());
            List<Member> others = new ArrayList<>(members);
            others.remove(victim);
            Member held = others.remove((pick / members.size()) % others.size());
            List<Member> entering = new ArrayList<>(others);
            entering.add(victim);
            Map<String, Sent> sent = send(entering, "enter", round);
            if (!awaitArrived(entering.size(), "all but one entered")) {
                // Not applied: let the held-back member in too and record what became of the round.
                sent.putAll(send(List.of(held), "enter", round));
                List<Member> all = new ArrayList<>(entering);
                all.add(held);
                List<Reply> enters = collect(all, sent, "enter", phaseDeadline());
                return finished(round, Fault.NONE, null, all, sessions, enters, passersLeave(all, enters, round));
            }
            long faultAt;
            List<Reply> enters;
            try (History.FaultWindow w = ctx.history().fault((fault == Fault.KILL_IN_ENTER ? "kill" : "pause") + "-in-enter " + victim.name())) {
                faultAt = System.nanoTime();
                long breakDeadline = faultAt + ctx.negotiatedSession().plus(MARGIN).plus(maxWait).toNanos();
                if (fault == Fault.KILL_IN_ENTER) {
                    victim.link().kill9();
                    enters = new ArrayList<>(collect(others, sent, "enter", breakDeadline));
                    sent.get(victim.name()).op().info(new IllegalStateException("killed"));
                    enters.add(new Reply(victim.name(), sent.get(victim.name()).nanos(), 0, Kind.NONE, 0, 0, 0, "killed"));
                    replace(victim);
                } else {
                    victim.link().pause();
                    try {
                        Awaits.hold(ctx.pauseLength());
                    } finally {
                        victim.link().resume();
                    }
                    enters = new ArrayList<>(collect(others, sent, "enter", breakDeadline));
                    enters.addAll(collect(List.of(victim), sent, "enter", deadlineAfter(Duration.ofSeconds(20))));
                }
            }
            List<Reply> late = collect(List.of(held), send(List.of(held), "enter", round, "late"), "enter",
                    deadlineAfter(maxWait.plusSeconds(5)));
            return new BarrierChecker.Round(round, fault, victim.name(), faultAt, enters, List.of(), late);
        }

        /** Everyone enters; all but a victim leave; once they all wait, the victim is killed. Every leaver must be told. */
        private BarrierChecker.Round breakInLeave(int round, int pick) throws InterruptedException {
            List<Member> all = List.copyOf(members);
            Map<String, Long> sessions = sessions(all);
            List<Reply> enters = collect(all, send(all, "enter", round), "enter", phaseDeadline());
            if (!enters.stream().allMatch(e -> e.kind() == Kind.PASSED)) {
                return finished(round, Fault.NONE, null, all, sessions, enters, passersLeave(all, enters, round));
            }
            Member victim = all.get(pick % all.size());
            List<Member> leaving = new ArrayList<>(all);
            leaving.remove(victim);
            Map<String, Sent> sent = send(leaving, "leave", round);
            if (!awaitLeft(leaving.size(), enters.get(0).generation(), "all but one left")) {
                // Not applied: let the victim leave too and record what became of the round.
                sent.putAll(send(List.of(victim), "leave", round));
                return finished(round, Fault.NONE, null, all, sessions, enters, collect(all, sent, "leave", phaseDeadline()));
            }
            long faultAt;
            List<Reply> leaves;
            try (History.FaultWindow w = ctx.history().fault("kill-in-leave " + victim.name())) {
                faultAt = System.nanoTime();
                victim.link().kill9();
                leaves = collect(leaving, sent, "leave", faultAt + ctx.negotiatedSession().plus(MARGIN).plus(maxWait).toNanos());
                replace(victim);
            }
            return new BarrierChecker.Round(round, Fault.KILL_IN_LEAVE, victim.name(), faultAt, enters, leaves, List.of());
        }

        /** Starts the next generation after a broken one (the control: clears Curator's barrier); retried (bounded) during an ensemble fault. */
        private void reset() throws InterruptedException {
            long deadline = System.nanoTime() + Awaits.scaled(Duration.ofSeconds(30)).toNanos();
            while (true) {
                try {
                    if (control) {
                        clearCuratorBarrier();
                    } else {
                        DoubleBarrier.reset(ctx.client(), BARRIER);
                    }
                    return;
                } catch (RuntimeException e) {
                    if (System.nanoTime() > deadline) {
                        throw e;
                    }
                    TimeUnit.MILLISECONDS.sleep(100); // retry after a short pause, bounded by the deadline
                }
            }
        }

        /** Curator's barrier has no reset: whatever a failed round left (seats of timed-out members, the ready node) goes. */
        private void clearCuratorBarrier() throws InterruptedException {
            try {
                for (String child : ctx.client().curator().getChildren().forPath(BarrierMember.CURATOR_PATH)) {
                    try {
                        ctx.client().curator().delete().forPath(BarrierMember.CURATOR_PATH + "/" + child);
                    } catch (KeeperException.NoNodeException gone) {
                        // its session ended meanwhile
                    }
                }
            } catch (KeeperException.NoNodeException never) {
                // nobody entered yet
            } catch (InterruptedException e) {
                throw e;
            } catch (Exception e) {
                throw new IllegalStateException("could not clear " + BarrierMember.CURATOR_PATH, e);
            }
        }

        /** Waits (bounded) until {@code count} members wait in enter of the open generation. */
        private boolean awaitArrived(int count, String what) throws InterruptedException {
            return awaitBarrier(what, () -> control ? curatorSeats() == count : status(s -> s.phase() == BarrierStatus.Phase.OPEN
                    && s.arrived().size() == count));
        }

        /**
         * Waits (bounded) until {@code count} members have left generation {@code generation} (and
         * wait for the rest). Curator's barrier shows no such state: there, until that many
         * members created their pre-leave marker (they call {@code leave} right after), then a moment.
         */
        private boolean awaitLeft(int count, long generation, String what) throws InterruptedException {
            if (!control) {
                return awaitBarrier(what, () -> status(s -> s.phase() == BarrierStatus.Phase.READY
                        && s.arrived().stream().filter(BarrierStatus.Arrival::left).count() == count));
            }
            String markers = MARKERS + "/g" + generation;
            boolean marked = awaitBarrier(what, () -> ctx.client().curator().getChildren().forPath(markers).stream()
                    .filter(c -> c.startsWith("pre-")).count() == count);
            if (marked) {
                Awaits.hold(Duration.ofMillis(100));
            }
            return marked;
        }

        private boolean status(java.util.function.Predicate<BarrierStatus> condition) throws Exception {
            return condition.test(DoubleBarrier.status(ctx.client(), BARRIER));
        }

        /** The members' nodes in Curator's barrier (its ready node aside). */
        private int curatorSeats() throws Exception {
            return (int) ctx.client().curator().getChildren().forPath(BarrierMember.CURATOR_PATH).stream()
                    .filter(c -> !c.equals("ready")).count();
        }

        @FunctionalInterface
        private interface Probe {
            boolean holds() throws Exception;
        }

        /** Polls {@code probe} (bounded: 20 s scaled); false, with a note, if it never held. */
        private boolean awaitBarrier(String what, Probe probe) throws InterruptedException {
            long deadline = System.nanoTime() + Awaits.scaled(Duration.ofSeconds(20)).toNanos();
            Exception last = null;
            while (System.nanoTime() < deadline) {
                try {
                    if (probe.holds()) {
                        return true;
                    }
                } catch (InterruptedException e) {
                    throw e;
                } catch (Exception e) {
                    last = e; // an ensemble fault may be in progress: read again
                }
                TimeUnit.MILLISECONDS.sleep(20); // polling the server, bounded by the deadline
            }
            ctx.out().println("CHAOS-NOTE " + ctx.name() + " not within 20 s: " + what + (last == null ? "" : "; last error " + last));
            return false;
        }

        private Map<String, Sent> send(List<Member> to, String command, int round) {
            return send(to, command, round, "");
        }

        /** Sends {@code command} with a fresh id (round, command, tag) to each of {@code to}, invoking its history operation first. */
        private Map<String, Sent> send(List<Member> to, String command, int round, String tag) {
            Map<String, Sent> sent = new LinkedHashMap<>();
            String id = round + command.substring(0, 1) + tag;
            for (Member m : to) {
                History.Handle op = ctx.history().invoke(m.name(), command, null);
                sent.put(m.name(), new Sent(id, System.nanoTime(), op));
                m.link().send(command + " " + id + (command.equals("enter") ? " " + round : ""));
            }
            return sent;
        }

        private static long deadlineAfter(Duration d) {
            return System.nanoTime() + d.toNanos();
        }

        /**
         * {@code m}'s answer to command {@code id}, waiting until {@code deadline}; null if none came.
         * Answers to other commands met on the way are kept for whoever waits for them; answers to
         * commands nobody waits for any more (a victim's, after the bound) are dropped with them.
         */
        private Line take(Member m, String id, long deadline) {
            Line kept = m.early().remove(id);
            if (kept != null) {
                return kept;
            }
            try {
                while (true) {
                    Line line = m.inbox().poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                    if (line == null || line.id().equals(id)) {
                        return line;
                    }
                    m.early().put(line.id(), line);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return null;
            }
        }

        /** The answers of {@code from} to {@code phase}, waiting until {@code deadline}; completes their history operations. */
        private List<Reply> collect(List<Member> from, Map<String, Sent> sent, String phase, long deadline) {
            List<Reply> out = new ArrayList<>();
            for (Member m : from) {
                Sent s = sent.get(m.name());
                Reply r = parse(m.name(), s.nanos(), take(m, s.id(), deadline));
                switch (r.kind()) {
                    case PASSED -> s.op().ok(r.generation());
                    case BROKEN -> s.op().fail(new BarrierBrokenException(r.text()));
                    default -> s.op().info(new IllegalStateException(r.text()));
                }
                out.add(r);
            }
            return out;
        }

        /** Reads a member's lines, stamped with their arrival, into its inbox until the run ends or the member does. */
        private Member adopt(WorkerLink w) {
            BlockingQueue<Line> inbox = new LinkedBlockingQueue<>();
            Thread t = new Thread(() -> {
                try {
                    while (!stop) {
                        Optional<String> line = w.next(Duration.ofMillis(200));
                        if (line.isPresent()) {
                            inbox.add(new Line(line.get(), System.nanoTime()));
                        } else if (!w.isAlive()) {
                            return;
                        }
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, "chaos-barrier-pump-" + w.name());
            t.setDaemon(true);
            t.start();
            return new Member(w, inbox, new HashMap<>(), t);
        }

        /** A killed member is replaced in its place by a spare, or else by a fresh worker. */
        private void replace(Member dead) throws InterruptedException {
            int at = members.indexOf(dead);
            members.set(at, spares.isEmpty() ? adopt(ctx.startWorkers("barrier", 1, args()).get(0)) : spares.remove(0));
        }
    }

    /** Parses one member's answer ({@code VERB id fields...}); null (nothing came) is {@link Kind#NONE}. */
    private static Reply parse(String member, long invoked, Line line) {
        if (line == null) {
            return new Reply(member, invoked, 0, Kind.NONE, 0, 0, 0, "no answer");
        }
        String[] f = line.text().split(" ");
        try {
            return switch (f[0]) {
                case "ENTERED" -> new Reply(member, invoked, line.nanos(), Kind.PASSED, Long.parseLong(f[2]), Long.parseLong(f[4]),
                        Long.parseLong(f[5]), line.text());
                case "LEFT" -> new Reply(member, invoked, line.nanos(), Kind.PASSED, Long.parseLong(f[2]), Long.parseLong(f[3]),
                        Long.parseLong(f[4]), line.text());
                case "BROKEN" -> new Reply(member, invoked, line.nanos(), Kind.BROKEN, 0, 0, 0, line.text());
                default -> new Reply(member, invoked, line.nanos(), Kind.ERROR, 0, 0, 0, line.text());
            };
        } catch (RuntimeException e) {
            return new Reply(member, invoked, line.nanos(), Kind.ERROR, 0, 0, 0, "unreadable: " + line.text());
        }
    }
}
