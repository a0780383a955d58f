package io.coord.chaos;

import io.coord.BarrierBrokenException;
import io.coord.CoordClient;
import io.coord.CoordSettings;
import io.coord.barrier.BarrierStatus;
import io.coord.barrier.DoubleBarrier;
import io.coord.chaos.BarrierChecker.Fault;
import io.coord.chaos.BarrierChecker.Kind;
import io.coord.chaos.BarrierChecker.Reply;
import io.coord.test.Awaits;
import io.coord.test.ChildJvm;
import io.coord.test.ForkedEnsemble;
import io.coord.test.History;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Chaos scenario "barrier": member JVMs ({@link BarrierMemberMain}) run rounds of one double
 * barrier. Some rounds carry a fault: a member killed (kill -9) or paused past its session
 * (SIGSTOP) while the others wait in enter, a member killed while the others wait in leave, or the
 * ensemble's leader killed mid-round. {@link BarrierChecker} checks that nobody got through early,
 * that rounds stay isolated, that every waiter of a broken generation was told within the session
 * timeout plus a margin, and that rounds without a member fault all pass; after a broken round
 * the barrier is reset and later rounds go on.
 */
public final class BarrierScenario {
    static final String NAME = "barrier";
    /** What "within the session timeout" may add: the expiry check, the watch, one read and the break. */
    static final Duration MARGIN = Duration.ofSeconds(3);

    /**
     * The run's size.
     *
     * @param members      member JVMs (the barrier's parties)
     * @param rounds       rounds in all, faulted ones included
     * @param killsInEnter rounds with a member killed while the others wait in enter
     * @param pausesInEnter rounds with a member paused past its session while the others wait in enter
     * @param killsInLeave rounds with a member killed while the others wait in leave
     * @param leaderKills  rounds with the ensemble's leader killed
     * @param session      the members' session timeout
     */
    public record Params(int members, int rounds, int killsInEnter, int pausesInEnter, int killsInLeave, int leaderKills,
                         Duration session) {
        public Params {
            if (members < 3) {
                throw new IllegalArgumentException("members must be >= 3 (a victim, a waiter and a late arrival), got " + members);
            }
            if (rounds < 2 * faults()) {
                throw new IllegalArgumentException("rounds " + rounds + " leave no plain round after each of the " + faults() + " faults");
            }
        }

        public static Params shortProfile() {
            return new Params(4, 24, 1, 1, 1, 1, Duration.ofSeconds(2));
        }

        public static Params longProfile(int minutes) {
            int m = Math.max(1, minutes);
            return new Params(5, 150 * m, 2 * m, 2 * m, 2 * m, 2 * m, Duration.ofSeconds(2));
        }

        int faults() {
            return killsInEnter + pausesInEnter + killsInLeave + leaderKills;
        }
    }

    private final ForkedEnsemble ensemble;
    private final Params params;
    private final String run = Long.toString(System.currentTimeMillis(), 36);
    private final String barrierName = "chaos-" + run;
    private final String markers = "/chaos/barrier-" + run;
    private final Duration timeout = Duration.ofSeconds(30);
    private final History history = new History();
    private final Random random = new Random(11);
    private final Map<String, Member> members = new LinkedHashMap<>();
    private CoordClient admin;

    private BarrierScenario(ForkedEnsemble ensemble, Params params) {
        this.ensemble = ensemble;
        this.params = params;
    }

    public static ScenarioReport run(ForkedEnsemble ensemble, Params params) throws InterruptedException {
        return new BarrierScenario(ensemble, params).run();
    }

    /** A line and when it arrived. */
    private record Line(String text, long nanos) {
    }

    private record Member(String name, ChildJvm jvm, ChildLines lines, BlockingQueue<Line> inbox) {
    }

    private ScenarioReport run() throws InterruptedException {
        long started = System.nanoTime();
        List<String> problems = new ArrayList<>();
        Map<String, Object> figures = new LinkedHashMap<>();
        List<BarrierChecker.Round> rounds = new ArrayList<>();
        int faults = 0;
        try {
            admin = CoordClient.connect(CoordSettings.builder().connectString(ensemble.connectString())
                    .sessionTimeout(Duration.ofSeconds(10)).connectionTimeout(Duration.ofSeconds(15)).build());
            for (int i = 0; i < params.members(); i++) {
                startMember("member-" + i);
            }
            Map<Integer, Fault> schedule = schedule();
            for (int round = 0; round < params.rounds(); round++) {
                Fault fault = schedule.getOrDefault(round, Fault.NONE);
                BarrierChecker.Round r = switch (fault) {
                    case NONE, LEADER -> plainRound(round, fault);
                    case KILL_IN_ENTER, PAUSE_IN_ENTER -> breakInEnter(round, fault);
                    case KILL_IN_LEAVE -> breakInLeave(round);
                };
                rounds.add(r);
                System.out.println("barrier round " + round + " " + fault + ": " + r.enters().stream().map(Reply::text).toList()
                        + " " + r.leaves().stream().map(Reply::text).toList() + " late " + r.late().stream().map(Reply::text).toList());
                if (fault != Fault.NONE) {
                    faults++;
                }
                if (fault.breaksEnter() || fault.breaksLeave() || !allPassed(r)) {
                    // A broken generation stays broken until reset: start the next one.
                    DoubleBarrier.reset(admin, barrierName);
                }
            }
            long bound = params.session().plus(MARGIN).toNanos();
            BarrierChecker.Verdict verdict = BarrierChecker.check(rounds, bound);
            problems.addAll(verdict.problems());
            figures.put("rounds", verdict.rounds());
            figures.put("passedRounds", verdict.passedRounds());
            figures.put("brokenAsExpected", verdict.brokenAsExpected());
            figures.put("slowestBreakMs", verdict.slowestBreakNanos() / 1_000_000);
            figures.put("breakBoundMs", bound / 1_000_000);
            figures.put("wallMs", (System.nanoTime() - started) / 1_000_000);
            return new ScenarioReport(NAME, history.counts().total(), faults, params.faults(), verdict.violations(), 0, problems, figures);
        } catch (InterruptedException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new IllegalStateException("barrier scenario failed to run: " + e + tails(), e);
        } finally {
            members.values().forEach(m -> {
                m.lines().close();
                m.jvm().close();
            });
            if (admin != null) {
                admin.close();
            }
        }
    }

    /** Which rounds carry which fault: spread out, each followed by at least one plain round. */
    private Map<Integer, Fault> schedule() {
        List<Fault> list = new ArrayList<>();
        for (int i = 0; i < params.killsInEnter(); i++) {
            list.add(Fault.KILL_IN_ENTER);
        }
        for (int i = 0; i < params.leaderKills(); i++) {
            list.add(Fault.LEADER);
        }
        for (int i = 0; i < params.pausesInEnter(); i++) {
            list.add(Fault.PAUSE_IN_ENTER);
        }
        for (int i = 0; i < params.killsInLeave(); i++) {
            list.add(Fault.KILL_IN_LEAVE);
        }
        java.util.Collections.shuffle(list, random);
        Map<Integer, Fault> at = new HashMap<>();
        int stride = params.rounds() / (list.size() + 1);
        for (int i = 0; i < list.size(); i++) {
            at.put(stride * (i + 1), list.get(i));
        }
        return at;
    }

    private static boolean allPassed(BarrierChecker.Round r) {
        return r.enters().stream().allMatch(e -> e.kind() == Kind.PASSED) && r.leaves().stream().allMatch(e -> e.kind() == Kind.PASSED)
                && !r.leaves().isEmpty();
    }

    /** Everyone enters and leaves; with {@link Fault#LEADER} the ensemble's leader is killed right after the enters go out. */
    private BarrierChecker.Round plainRound(int round, Fault fault) {
        List<String> all = new ArrayList<>(members.keySet());
        Map<String, Long> sent = send(all, "enter");
        int killed = -1;
        if (fault == Fault.LEADER) {
            killed = ensemble.awaitLeader(30_000);
            ensemble.kill9(killed);
        }
        List<Reply> enters = collect(sent, "enter", deadlineAfter(timeout.plusSeconds(10)));
        List<Reply> leaves = List.of();
        if (enters.stream().allMatch(e -> e.kind() == Kind.PASSED)) {
            leaves = collect(send(all, "leave"), "leave", deadlineAfter(timeout.plusSeconds(10)));
        }
        if (killed >= 0) {
            ensemble.awaitLeader(30_000);
            ensemble.restart(killed);
        }
        return new BarrierChecker.Round(round, fault, null, 0, enters, leaves, List.of());
    }

    /**
     * A victim and all but one other member enter; once they all wait, the victim is killed or
     * paused past its session. Every waiter must be told the generation broke; then the member held
     * back arrives late and must be refused.
     */
    private BarrierChecker.Round breakInEnter(int round, Fault fault) throws InterruptedException {
        List<String> all = new ArrayList<>(members.keySet());
        String victim = all.get(random.nextInt(all.size()));
        List<String> others = new ArrayList<>(all);
        others.remove(victim);
        String held = others.remove(random.nextInt(others.size()));
        List<String> entering = new ArrayList<>(others);
        entering.add(victim);
        Map<String, Long> sent = send(entering, "enter");
        awaitStatus("all but one entered", s -> s.phase() == BarrierStatus.Phase.OPEN && s.arrived().size() == entering.size());
        long faultAt = System.nanoTime();
        Reply victimReply;
        List<Reply> waiters;
        Member v = members.get(victim);
        if (fault == Fault.KILL_IN_ENTER) {
            v.jvm().kill9();
            waiters = collect(subset(sent, others), "enter", faultAt + params.session().plus(MARGIN).plusSeconds(10).toNanos());
            victimReply = new Reply(victim, sent.get(victim), 0, Kind.NONE, 0, 0, 0, "killed");
            replace(v);
        } else {
            v.jvm().pause();
            try {
                Awaits.hold(Duration.ofMillis(params.session().toMillis() * 5 / 2));
            } finally {
                v.jvm().resume();
            }
            waiters = collect(subset(sent, others), "enter", faultAt + params.session().plus(MARGIN).plusSeconds(10).toNanos());
            victimReply = collect(subset(sent, List.of(victim)), "enter", deadlineAfter(Duration.ofSeconds(20))).get(0);
        }
        List<Reply> enters = new ArrayList<>(waiters);
        enters.add(victimReply);
        List<Reply> late = collect(send(List.of(held), "enter"), "enter", deadlineAfter(Duration.ofSeconds(10)));
        return new BarrierChecker.Round(round, fault, victim, faultAt, enters, List.of(), late);
    }

    /** Everyone enters; all but a victim leave; once they all wait, the victim is killed. Every leaver must be told. */
    private BarrierChecker.Round breakInLeave(int round) throws InterruptedException {
        List<String> all = new ArrayList<>(members.keySet());
        List<Reply> enters = collect(send(all, "enter"), "enter", deadlineAfter(timeout.plusSeconds(10)));
        if (!enters.stream().allMatch(e -> e.kind() == Kind.PASSED)) {
            return new BarrierChecker.Round(round, Fault.NONE, null, 0, enters, List.of(), List.of());
        }
        String victim = all.get(random.nextInt(all.size()));
        List<String> leaving = new ArrayList<>(all);
        leaving.remove(victim);
        Map<String, Long> sent = send(leaving, "leave");
        awaitStatus("all but one left", s -> s.phase() == BarrierStatus.Phase.READY
                && s.arrived().stream().filter(BarrierStatus.Arrival::left).count() == leaving.size());
        long faultAt = System.nanoTime();
        Member v = members.get(victim);
        v.jvm().kill9();
        List<Reply> leaves = collect(sent, "leave", faultAt + params.session().plus(MARGIN).plusSeconds(10).toNanos());
        replace(v);
        return new BarrierChecker.Round(round, Fault.KILL_IN_LEAVE, victim, faultAt, enters, leaves, List.of());
    }

    /** Waits (bounded) until the barrier's status meets {@code condition}; fails naming the last status seen. */
    private void awaitStatus(String what, java.util.function.Predicate<BarrierStatus> condition) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        BarrierStatus last = null;
        while (System.nanoTime() < deadline) {
            last = DoubleBarrier.status(admin, barrierName);
            if (condition.test(last)) {
                return;
            }
            TimeUnit.MILLISECONDS.sleep(20); // polling the server, bounded by the deadline
        }
        throw new IllegalStateException("not within 20 s: " + what + " (barrier " + barrierName + "); last status " + last);
    }

    private Map<String, Long> send(List<String> names, String command) {
        Map<String, Long> sent = new LinkedHashMap<>();
        for (String n : names) {
            sent.put(n, System.nanoTime());
            members.get(n).jvm().send(command);
        }
        return sent;
    }

    private static Map<String, Long> subset(Map<String, Long> sent, List<String> names) {
        Map<String, Long> out = new LinkedHashMap<>();
        names.forEach(n -> out.put(n, sent.get(n)));
        return out;
    }

    private static long deadlineAfter(Duration d) {
        return System.nanoTime() + d.toNanos();
    }

    /** Each member's answer to {@code phase}, waiting until {@code deadline}; recorded in the history. */
    private List<Reply> collect(Map<String, Long> sent, String phase, long deadline) {
        List<Reply> out = new ArrayList<>();
        for (Map.Entry<String, Long> s : sent.entrySet()) {
            Member m = members.get(s.getKey());
            History.Handle h = history.invoke(m.name(), phase, null);
            Line line = null;
            try {
                long left = deadline - System.nanoTime();
                line = m.inbox().poll(Math.max(0, left), TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            Reply r = parse(m.name(), s.getValue(), line);
            switch (r.kind()) {
                case PASSED -> h.ok(r.generation());
                case BROKEN -> h.fail(new BarrierBrokenException(r.text()));
                default -> h.info(new IllegalStateException(r.text()));
            }
            out.add(r);
        }
        return out;
    }

    static Reply parse(String member, long invoked, Line line) {
        if (line == null) {
            return new Reply(member, invoked, 0, Kind.NONE, 0, 0, 0, "no answer");
        }
        String[] f = line.text().split(" ");
        return switch (f[0]) {
            case "ENTERED" -> new Reply(member, invoked, line.nanos(), Kind.PASSED, Long.parseLong(f[1]), Long.parseLong(f[3]),
                    Long.parseLong(f[4]), line.text());
            case "LEFT" -> new Reply(member, invoked, line.nanos(), Kind.PASSED, Long.parseLong(f[1]), Long.parseLong(f[2]),
                    Long.parseLong(f[3]), line.text());
            case "BROKEN" -> new Reply(member, invoked, line.nanos(), Kind.BROKEN, 0, 0, 0, line.text());
            default -> new Reply(member, invoked, line.nanos(), Kind.ERROR, 0, 0, 0, line.text());
        };
    }

    private void startMember(String name) {
        ChildJvm jvm = ChildJvm.start(BarrierMemberMain.class.getName(), ensemble.connectString(), barrierName,
                Integer.toString(params.members()), name, Long.toString(params.session().toMillis()), markers,
                Long.toString(timeout.toMillis()));
        BlockingQueue<Line> inbox = new LinkedBlockingQueue<>();
        ChildLines lines = ChildLines.start(name, jvm, (child, text, at) -> inbox.add(new Line(text, at)));
        Line ready;
        try {
            ready = inbox.poll(60, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while starting " + name, e);
        }
        if (ready == null || !ready.text().equals("READY")) {
            lines.close();
            jvm.close();
            throw new IllegalStateException("member " + name + " not ready within 60 s: " + ready + jvm.stderrTail());
        }
        members.put(name, new Member(name, jvm, lines, inbox));
    }

    /** A killed member comes back as a fresh JVM under the same name. */
    private void replace(Member dead) {
        dead.lines().close();
        dead.jvm().close();
        members.remove(dead.name());
        startMember(dead.name());
    }

    private String tails() {
        StringBuilder b = new StringBuilder();
        members.values().forEach(m -> b.append(m.jvm().stderrTail()));
        return b.toString();
    }
}
