package io.coord.chaos;

import io.coord.membership.Group;
import io.coord.membership.GroupListener;
import io.coord.membership.GroupView;
import io.coord.test.Awaits;
import io.coord.test.History;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;

/**
 * Cluster membership (RELIABILITY.md matrix, "Cluster membership"): {@value #MEMBERS} member JVMs
 * join one coord-membership group and each reports every view it installs, while members are
 * killed (kill -9, then a new member joins in its place), paused past their session and
 * partitioned (their proxy frozen past the session timeout). The controller observes the group
 * through its own {@code Group} and reads it directly every {@code SAMPLE} (the truth), then checks
 * {@link MembershipChecker}'s invariants: 0 divergent views after 2 s of quiet, 0 view-version
 * regressions per observer, no incarnation back in a view after it left, and every paused or
 * partitioned member sees its node lost and rejoins.
 *
 * <p>{@code membership-control} runs (alongside, in its own namespace) the pauses of the same schedule with members whose views come
 * from a one-shot {@code getChildren} watch never re-read on reconnect: after an expiry such a view
 * freezes, which must show as divergent views.
 */
final class MembershipScenario implements Scenario {
    static final int MEMBERS = 10;
    private static final int CONTROL_MEMBERS = 5;
    private static final Duration SAMPLE = Duration.ofMillis(250);
    private static final String CONTROLLER = "controller";

    @Override
    public String name() {
        return "membership";
    }

    @Override
    public List<String> controls() {
        return List.of("membership-control");
    }

    @Override
    public List<ChaosResult> run(ChaosSuite.Run run) throws InterruptedException {
        Profile p = run.profile();
        Map<FaultKind, Integer> counts = new EnumMap<>(FaultKind.class);
        // The short profile (CI's loaded second pass) applies about two fifths of the CI tier's faults.
        counts.put(FaultKind.KILL_BUSY, p.scale(4, 10));
        counts.put(FaultKind.PAUSE, p.scale(2, 5));
        counts.put(FaultKind.FREEZE, p.scale(1, 2));
        Map<FaultKind, Integer> controlCounts = new EnumMap<>(FaultKind.class);
        controlCounts.put(FaultKind.PAUSE, p.scale(2));
        Round main = new Round(run.context("membership"), false, MEMBERS, counts);
        if (!run.controls()) {
            return Alongside.alone(main);
        }
        Round control = new Round(run.context("membership-control"), true, CONTROL_MEMBERS, controlCounts);
        return Alongside.run(main, control);
    }

    /** One run: the main one or the control. */
    private static final class Round implements Alongside.Round {
        private final ChaosContext ctx;
        private final boolean control;
        private final int members;
        private final Map<FaultKind, Integer> counts;
        private final String mode;
        private final AtomicBoolean stop = new AtomicBoolean();
        private final AtomicLong stuck = new AtomicLong();
        private final List<Thread> readers = new CopyOnWriteArrayList<>();
        private final List<MembershipChecker.View> views = new CopyOnWriteArrayList<>();
        private final List<MembershipChecker.Sample> samples = new CopyOnWriteArrayList<>();
        private final List<MembershipChecker.SelfEvent> self = new CopyOnWriteArrayList<>();
        private FaultPlan plan;
        private Group<String> observer;
        private Thread sampler;

        Round(ChaosContext ctx, boolean control, int members, Map<FaultKind, Integer> counts) {
            this.ctx = ctx;
            this.control = control;
            this.members = members;
            this.counts = counts;
            this.mode = control ? "naive" : "coord";
        }

        @Override
        public void start() throws InterruptedException {
            plan = FaultPlan.of(ctx.random(), ctx.length(), counts);
            ctx.out().println("CHAOS-PLAN " + ctx.name() + " " + plan);
            observer = Group.open(ctx.client(), MembershipWorker.GROUP, String.class);
            observer.addListener(new GroupListener<>() {
                @Override
                public void onViewChanged(GroupView<String> view) {
                    views.add(parse(CONTROLLER, System.nanoTime(), MembershipWorker.line(view)));
                }
            }, Runnable::run);
            for (WorkerLink w : ctx.startWorkers("membership", members, mode)) {
                read(w);
            }
            sampler = new Thread(this::sample, "chaos-sample-" + ctx.name());
            sampler.setDaemon(true);
            sampler.start();
        }

        @Override
        public ChaosResult finish() throws InterruptedException {
            try (Group<String> closing = observer) {
                ctx.awaitFirstAck();
                FaultRunner faults = ctx.startFaults(plan, this::apply);
                Duration bound = Awaits.scaled(DiscoveryScenario.estimate(counts, ctx.pauseLength()).multipliedBy(2).plusSeconds(60));
                long t0 = System.nanoTime();
                boolean finished = faults.await(bound);
                long rest = ctx.length().toNanos() - (System.nanoTime() - t0);
                if (rest > 0) {
                    Thread.sleep(rest / 1_000_000);
                }
                // the last fault's changes settle, then the group stays quiet for the final comparison
                Awaits.hold(Awaits.scaled(Duration.ofSeconds(6)));
                stop.set(true);
                sampler.join(Awaits.scaled(Duration.ofSeconds(10)).toMillis());
                for (Thread t : readers) {
                    t.join(Awaits.scaled(Duration.ofSeconds(10)).toMillis());
                }
                if (!finished) {
                    ctx.out().println("CHAOS-NOTE " + ctx.name() + " the fault schedule did not finish within " + bound.toSeconds() + " s");
                }
                faults.notes().forEach(n -> ctx.out().println("CHAOS-NOTE " + ctx.name() + " " + n));
                History h = ctx.history();
                ctx.out().println("CHAOS-TIMELINE " + ctx.name() + " " + Progress.timeline(h));

                Set<String> live = ctx.workers().stream().filter(WorkerLink::isAlive).map(WorkerLink::name).collect(Collectors.toSet());
                MembershipChecker.Bounds bounds = new MembershipChecker.Bounds(Awaits.scaled(Duration.ofSeconds(2)).toNanos(),
                        ChaosContext.SETTLE.toNanos(), ctx.negotiatedSession().toNanos() + Awaits.scaled(Duration.ofSeconds(5)).toNanos());
                MembershipChecker.Result r = MembershipChecker.check(views, samples, WorkerFault.of(h), self, live, bounds);
                Map<String, Object> d = r.details();
                d.put("members-started", ctx.workers().size());
                d.put("views", views.size());
                d.put("samples", samples.size());
                return new ChaosResult(ctx.name(), control, h.counts().ok(), faults.scheduled(), faults.applied(), r.violations(),
                        r.lost(), stuck.get(), Progress.of(h, ChaosContext.SETTLE), d);
            }
        }

        /** Reads one member's reports until the run stops or the member is gone. */
        private void read(WorkerLink w) {
            Thread t = new Thread(() -> {
                try {
                    while (!stop.get()) {
                        Optional<String> line = w.next(Duration.ofMillis(200));
                        if (line.isEmpty()) {
                            if (!w.isAlive()) {
                                return;
                            }
                            continue;
                        }
                        String l = line.get();
                        long now = System.nanoTime();
                        if (l.startsWith("VIEW ")) {
                            views.add(parse(w.name(), now, l));
                        } else if (l.equals("NODELOST")) {
                            self.add(new MembershipChecker.SelfEvent(w.name(), MembershipChecker.SelfType.NODELOST, now));
                        } else if (l.startsWith("REJOINED ")) {
                            self.add(new MembershipChecker.SelfEvent(w.name(), MembershipChecker.SelfType.REJOINED, now));
                        } else if (l.startsWith("GAVEUP") || l.startsWith("ERR")) {
                            ctx.out().println("CHAOS-NOTE " + ctx.name() + " " + w.name() + ": " + l);
                            stuck.incrementAndGet();
                        }
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, "chaos-read-" + w.name());
            t.setDaemon(true);
            readers.add(t);
            t.start();
        }

        static MembershipChecker.View parse(String observer, long nanos, String line) {
            String[] p = line.split(" ");
            Map<String, Long> m = new TreeMap<>();
            if (!p[2].equals("-")) {
                for (String e : p[2].split(",")) {
                    int colon = e.lastIndexOf(':');
                    m.put(e.substring(0, colon), Long.parseUnsignedLong(e.substring(colon + 1), 16));
                }
            }
            return new MembershipChecker.View(observer, nanos, Long.parseUnsignedLong(p[1], 16), m);
        }

        /** The truth, every SAMPLE: the group node's children, their czxids and its pzxid, recorded as one operation. */
        private void sample() {
            String path = Group.ROOT.child(MembershipWorker.GROUP).value();
            while (!stop.get()) {
                History.Handle h = ctx.history().invoke(CONTROLLER, "sample", null);
                long start = System.nanoTime();
                try {
                    Stat parent = new Stat();
                    List<String> children = ctx.client().curator().getChildren().storingStatIn(parent).forPath(path);
                    Map<String, Long> m = new HashMap<>();
                    boolean consistent = true;
                    for (String c : children) {
                        Stat s = ctx.client().curator().checkExists().forPath(path + "/" + c);
                        if (s == null || s.getCzxid() > parent.getPzxid()) {
                            consistent = false; // changed between the listing and this read: not one state of the group
                            break;
                        }
                        m.put(c, s.getCzxid());
                    }
                    h.ok(parent.getPzxid());
                    if (consistent) {
                        samples.add(new MembershipChecker.Sample(start, System.nanoTime(), parent.getPzxid(), m));
                    }
                } catch (InterruptedException e) {
                    h.info(e);
                    return;
                } catch (KeeperException.NoNodeException e) {
                    h.ok(0L); // no member joined yet
                } catch (Exception e) {
                    h.info(e);
                }
                try {
                    Thread.sleep(SAMPLE.toMillis());
                } catch (InterruptedException e) {
                    return;
                }
            }
        }

        /** KILL_BUSY: kill -9 of a member, then a new member joins in its place. FREEZE: its proxy black-holes past the session. */
        private boolean apply(FaultPlan.Fault f, Duration bound) throws InterruptedException {
            Optional<WorkerLink> picked = WorkerFault.pick(ctx, f.pick());
            if (picked.isEmpty()) {
                return false;
            }
            WorkerLink victim = picked.get();
            switch (f.kind()) {
                case KILL_BUSY -> {
                    WorkerFault.killAndReplace(ctx, victim, "membership", this::read, mode);
                    return true;
                }
                case FREEZE -> {
                    try (History.FaultWindow window = ctx.history().fault("freeze " + victim.name())) {
                        victim.proxy().freeze();
                        try {
                            Awaits.hold(ctx.pauseLength());
                        } finally {
                            victim.proxy().unfreeze();
                        }
                    }
                    return true;
                }
                default -> throw new IllegalStateException(ctx.name() + " has no hook for " + f.kind());
            }
        }
    }
}
