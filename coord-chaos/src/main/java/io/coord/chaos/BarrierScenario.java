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
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Predicate;

/**
 * Chaos scenario "barrier": member JVMs ({@link BarrierMember}) run round after round of one
 * double barrier for the run's length. Faults: the ensemble's leader killed (any round it hits must
 * still pass), a member killed (kill -9) while the others wait in enter, then one killed while the
 * others wait in leave ({@link FaultKind#KILL_BUSY}, alternately), and a member paused past its
 * session while the others wait in enter ({@link FaultKind#PAUSE_BUSY}). The member faults are
 * applied by the round loop (the fault runner's hook hands them over and waits), since only it
 * knows when the others wait. {@link BarrierChecker} checks that nobody got through early, that
 * rounds stay isolated, that every waiter of a broken generation got {@code BarrierBrokenException}
 * within the session timeout plus {@link #MARGIN}, and that every other round passed; after a
 * broken round the barrier is reset and later rounds go on.
 *
 * <p>History: {@code enter} and {@code leave} per member (invoked before the command is sent; ok
 * when it passed, fail when BROKEN, info otherwise).
 */
final class BarrierScenario implements Scenario {
    /** What "within the session timeout" may add: the expiry check, the watch, one read and the break. */
    static final Duration MARGIN = Duration.ofSeconds(3);
    private static final String BARRIER = "rounds";
    private static final String MARKERS = "/markers";
    private static final int MEMBERS = 4;
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    private ChaosContext ctx;
    private final List<Member> members = new ArrayList<>();
    /** Started with the members, idle until one replaces a killed member: a fresh JVM takes seconds to start. */
    private final List<Member> spares = new ArrayList<>();
    private final BlockingQueue<Request> requests = new LinkedBlockingQueue<>();
    private volatile boolean stop;
    private int killsBusy;

    @Override
    public String name() {
        return "barrier";
    }

    /** A line and when the controller received it. */
    private record Line(String text, long nanos) {
    }

    private record Member(WorkerLink link, BlockingQueue<Line> inbox, Thread pump) {
        String name() {
            return link.name();
        }
    }

    /** A member fault handed from the fault runner's thread to the round loop. */
    private record Request(FaultPlan.Fault fault, CompletableFuture<Boolean> applied) {
    }

    /** A command sent: when, and its history operation. */
    private record Sent(long nanos, History.Handle op) {
    }

    @Override
    public List<ChaosResult> run(ChaosSuite.Run run) throws InterruptedException {
        ctx = run.context("barrier");
        Profile p = run.profile();
        Map<FaultKind, Integer> counts = new EnumMap<>(FaultKind.class);
        counts.put(FaultKind.KILL_BUSY, p.scale(2));
        counts.put(FaultKind.PAUSE_BUSY, p.scale(1));
        counts.put(FaultKind.KILL_ZK_LEADER, p.scale(1));
        FaultPlan plan = FaultPlan.of(ctx.random(), ctx.length(), counts);
        ctx.out().println("CHAOS-PLAN barrier " + plan);
        try {
            // At most two spares: a long run's many kills must not start a crowd of JVMs at once.
            return List.of(runWith(plan, Math.min(2, counts.get(FaultKind.KILL_BUSY))));
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

    private ChaosResult runWith(FaultPlan plan, int spareCount) throws InterruptedException {
        for (WorkerLink w : ctx.startWorkers("barrier", MEMBERS + spareCount, args())) {
            (members.size() < MEMBERS ? members : spares).add(adopt(w));
        }
        List<BarrierChecker.Round> rounds = new ArrayList<>();
        // Faults start once rounds run: the warm-up rate (the floor's reference) needs acknowledgements.
        int round = 0;
        for (; round < 1; round++) {
            BarrierChecker.Round r = plainRound(round);
            rounds.add(r);
            if (!allPassed(r)) {
                reset();
            }
        }
        long start = System.nanoTime();
        long hardEnd = start + ctx.length().plus(ChaosContext.faultOverrun(ctx.length())).toNanos();
        FaultRunner faults = ctx.startFaults(plan, this::handOver);
        long stuck = 0;
        while ((System.nanoTime() - start < ctx.length().toNanos() || !faults.isDone() || !requests.isEmpty())
                && System.nanoTime() < hardEnd) {
            Request request = requests.poll();
            BarrierChecker.Round r;
            if (request == null) {
                r = plainRound(round);
            } else {
                r = faultRound(round, request);
            }
            rounds.add(r);
            if (r.fault() != Fault.NONE || !allPassed(r)) {
                // A broken generation stays broken until reset: start the next one.
                reset();
            }
            if (r.enters().stream().anyMatch(e -> e.kind() == Kind.NONE && !e.member().equals(r.victim()))
                    || r.leaves().stream().anyMatch(e -> e.kind() == Kind.NONE)) {
                stuck++;
                break; // a member stopped answering: nothing after this would be meaningful
            }
            round++;
        }
        boolean finished = faults.await(Awaits.scaled(Duration.ofSeconds(60)));
        if (!finished) {
            ctx.out().println("CHAOS-NOTE barrier the fault schedule did not finish in time");
        }
        Request left;
        while ((left = requests.poll()) != null) {
            left.applied().complete(false);
        }
        faults.notes().forEach(n -> ctx.out().println("CHAOS-NOTE barrier " + n));

        long bound = ctx.negotiatedSession().plus(MARGIN).toNanos();
        BarrierChecker.Verdict v = BarrierChecker.check(rounds, bound);
        v.problems().forEach(pr -> ctx.out().println("CHAOS-NOTE barrier " + pr));
        History h = ctx.history();
        ctx.out().println("CHAOS-TIMELINE barrier " + Progress.timeline(h));
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("rounds", v.rounds());
        d.put("passed-rounds", v.passedRounds());
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
        return new ChaosResult(ctx.name(), false, h.counts().ok(), faults.scheduled(), faults.applied(), v.violations(), 0, stuck,
                Progress.of(h, ChaosContext.SETTLE), d);
    }

    private static String[] args() {
        return new String[] {BARRIER, Integer.toString(MEMBERS), MARKERS, Long.toString(TIMEOUT.toMillis())};
    }

    /** The fault runner's hook: hands a member fault to the round loop and waits (bounded) until it was applied. */
    private boolean handOver(FaultPlan.Fault fault, Duration bound) throws InterruptedException {
        Request r = new Request(fault, new CompletableFuture<>());
        requests.add(r);
        try {
            return r.applied().get(bound.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            ctx.out().println("CHAOS-NOTE barrier " + fault + " failed: " + e.getCause());
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

    /**
     * Everyone enters, then everyone leaves. If the round did not pass, the members whose session
     * ended on its own meanwhile (a new session reported within the session timeout plus 2 s) are
     * recorded with it: they explain a break.
     */
    private BarrierChecker.Round plainRound(int round) throws InterruptedException {
        List<Member> all = List.copyOf(members);
        Map<String, Long> sessions = sessions(all);
        List<Reply> enters = collect(all, send(all, "enter"), "enter", deadlineAfter(TIMEOUT.plusSeconds(10)));
        List<Reply> leaves = List.of();
        if (enters.stream().allMatch(e -> e.kind() == Kind.PASSED)) {
            leaves = collect(all, send(all, "leave"), "leave", deadlineAfter(TIMEOUT.plusSeconds(10)));
        }
        BarrierChecker.Round r = new BarrierChecker.Round(round, Fault.NONE, null, 0, enters, leaves, List.of());
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
            ctx.out().println("CHAOS-NOTE barrier round " + round + ": session(s) ended without an injected fault: " + lost);
        }
        return new BarrierChecker.Round(round, Fault.NONE, null, 0, enters, leaves, List.of(), lost);
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
        Member victim = members.get(pick % members.size());
        List<Member> others = new ArrayList<>(members);
        others.remove(victim);
        Member held = others.remove((pick / members.size()) % others.size());
        List<Member> entering = new ArrayList<>(others);
        entering.add(victim);
        Map<String, Sent> sent = send(entering, "enter");
        if (!awaitStatus("all but one entered", s -> s.phase() == BarrierStatus.Phase.OPEN && s.arrived().size() == entering.size())) {
            // Not applied: let the held-back member in too and record what became of the round.
            sent.putAll(send(List.of(held), "enter"));
            List<Member> all = new ArrayList<>(entering);
            all.add(held);
            List<Reply> enters = collect(all, sent, "enter", deadlineAfter(TIMEOUT.plusSeconds(10)));
            List<Reply> leaves = enters.stream().allMatch(e -> e.kind() == Kind.PASSED)
                    ? collect(all, send(all, "leave"), "leave", deadlineAfter(TIMEOUT.plusSeconds(10))) : List.of();
            return new BarrierChecker.Round(round, Fault.NONE, null, 0, enters, leaves, List.of());
        }
        long faultAt;
        List<Reply> enters;
        try (History.FaultWindow w = ctx.history().fault((fault == Fault.KILL_IN_ENTER ? "kill" : "pause") + "-in-enter " + victim.name())) {
            faultAt = System.nanoTime();
            long breakDeadline = faultAt + ctx.negotiatedSession().plus(MARGIN).plusSeconds(10).toNanos();
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
        List<Reply> late = collect(List.of(held), send(List.of(held), "enter"), "enter", deadlineAfter(Duration.ofSeconds(10)));
        return new BarrierChecker.Round(round, fault, victim.name(), faultAt, enters, List.of(), late);
    }

    /** Everyone enters; all but a victim leave; once they all wait, the victim is killed. Every leaver must be told. */
    private BarrierChecker.Round breakInLeave(int round, int pick) throws InterruptedException {
        List<Member> all = List.copyOf(members);
        List<Reply> enters = collect(all, send(all, "enter"), "enter", deadlineAfter(TIMEOUT.plusSeconds(10)));
        if (!enters.stream().allMatch(e -> e.kind() == Kind.PASSED)) {
            return new BarrierChecker.Round(round, Fault.NONE, null, 0, enters, List.of(), List.of());
        }
        Member victim = all.get(pick % all.size());
        List<Member> leaving = new ArrayList<>(all);
        leaving.remove(victim);
        Map<String, Sent> sent = send(leaving, "leave");
        if (!awaitStatus("all but one left", s -> s.phase() == BarrierStatus.Phase.READY
                && s.arrived().stream().filter(BarrierStatus.Arrival::left).count() == leaving.size())) {
            // Not applied: let the victim leave too and record what became of the round.
            sent.putAll(send(List.of(victim), "leave"));
            return new BarrierChecker.Round(round, Fault.NONE, null, 0, enters,
                    collect(all, sent, "leave", deadlineAfter(TIMEOUT.plusSeconds(10))), List.of());
        }
        long faultAt;
        List<Reply> leaves;
        try (History.FaultWindow w = ctx.history().fault("kill-in-leave " + victim.name())) {
            faultAt = System.nanoTime();
            victim.link().kill9();
            leaves = collect(leaving, sent, "leave", faultAt + ctx.negotiatedSession().plus(MARGIN).plusSeconds(10).toNanos());
            replace(victim);
        }
        return new BarrierChecker.Round(round, Fault.KILL_IN_LEAVE, victim.name(), faultAt, enters, leaves, List.of());
    }

    /** Starts the next generation after a broken one; retried (bounded) while an ensemble fault is in progress. */
    private void reset() throws InterruptedException {
        long deadline = System.nanoTime() + Awaits.scaled(Duration.ofSeconds(30)).toNanos();
        while (true) {
            try {
                DoubleBarrier.reset(ctx.client(), BARRIER);
                return;
            } catch (RuntimeException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                TimeUnit.MILLISECONDS.sleep(100); // retry after a short pause, bounded by the deadline
            }
        }
    }

    /**
     * Waits (bounded) until the barrier's status meets {@code condition}; false (with a note naming
     * the last status seen) if it did not within 20 s.
     */
    private boolean awaitStatus(String what, Predicate<BarrierStatus> condition) throws InterruptedException {
        long deadline = System.nanoTime() + Awaits.scaled(Duration.ofSeconds(20)).toNanos();
        BarrierStatus last = null;
        while (System.nanoTime() < deadline) {
            try {
                last = DoubleBarrier.status(ctx.client(), BARRIER);
                if (condition.test(last)) {
                    return true;
                }
            } catch (RuntimeException e) {
                // an ensemble fault may be in progress: read again
            }
            TimeUnit.MILLISECONDS.sleep(20); // polling the server, bounded by the deadline
        }
        ctx.out().println("CHAOS-NOTE barrier not within 20 s: " + what + "; last status " + last);
        return false;
    }

    private Map<String, Sent> send(List<Member> to, String command) {
        Map<String, Sent> sent = new LinkedHashMap<>();
        for (Member m : to) {
            History.Handle op = ctx.history().invoke(m.name(), command, null);
            sent.put(m.name(), new Sent(System.nanoTime(), op));
            m.link().send(command);
        }
        return sent;
    }

    private static long deadlineAfter(Duration d) {
        return System.nanoTime() + d.toNanos();
    }

    /** The answers of {@code from} to {@code phase}, waiting until {@code deadline}; completes their history operations. */
    private List<Reply> collect(List<Member> from, Map<String, Sent> sent, String phase, long deadline) {
        List<Reply> out = new ArrayList<>();
        for (Member m : from) {
            Sent s = sent.get(m.name());
            Line line = null;
            try {
                line = m.inbox().poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            Reply r = parse(m.name(), s.nanos(), line);
            switch (r.kind()) {
                case PASSED -> s.op().ok(r.generation());
                case BROKEN -> s.op().fail(new BarrierBrokenException(r.text()));
                default -> s.op().info(new IllegalStateException(r.text()));
            }
            out.add(r);
        }
        return out;
    }

    /** Parses one member's answer; null (nothing came) is {@link Kind#NONE}. */
    static Reply parse(String member, long invoked, Line line) {
        if (line == null) {
            return new Reply(member, invoked, 0, Kind.NONE, 0, 0, 0, "no answer");
        }
        String[] f = line.text().split(" ");
        try {
            return switch (f[0]) {
                case "ENTERED" -> new Reply(member, invoked, line.nanos(), Kind.PASSED, Long.parseLong(f[1]), Long.parseLong(f[3]),
                        Long.parseLong(f[4]), line.text());
                case "LEFT" -> new Reply(member, invoked, line.nanos(), Kind.PASSED, Long.parseLong(f[1]), Long.parseLong(f[2]),
                        Long.parseLong(f[3]), line.text());
                case "BROKEN" -> new Reply(member, invoked, line.nanos(), Kind.BROKEN, 0, 0, 0, line.text());
                default -> new Reply(member, invoked, line.nanos(), Kind.ERROR, 0, 0, 0, line.text());
            };
        } catch (RuntimeException e) {
            return new Reply(member, invoked, line.nanos(), Kind.ERROR, 0, 0, 0, "unreadable: " + line.text());
        }
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
        return new Member(w, inbox, t);
    }

    /** A killed member is replaced in its place by a spare, or else by a fresh worker. */
    private void replace(Member dead) throws InterruptedException {
        int at = members.indexOf(dead);
        members.set(at, spares.isEmpty() ? adopt(ctx.startWorkers("barrier", 1, args()).get(0)) : spares.remove(0));
    }
}
