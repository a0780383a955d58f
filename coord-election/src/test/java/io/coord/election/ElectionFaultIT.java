package io.coord.election;

import static io.coord.election.ElectionTestKit.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.CoordClient;
import io.coord.LeaseState;
import io.coord.LockLostException;
import io.coord.Registration;
import io.coord.fence.InMemoryFenceGuard;
import io.coord.test.ClientProxy;
import io.coord.test.ChildJvm;
import io.coord.test.EmbeddedEnsemble;
import io.coord.test.Faults;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The election under faults: forced leadership changes of every kind, a leader cut off from
 * ZooKeeper, the ZooKeeper leader killed. Safety is checked with the epoch fence (a FenceGuard and
 * a fenced register every leader writes while it leads), never with sleeps.
 */
@Tag("fault")
class ElectionFaultIT {
    @RegisterExtension
    static final ElectionTestKit KIT = new ElectionTestKit();
    /** Short sessions keep expiry-based changes quick; the server allows 1..10 s (tickTime 500 ms). */
    private static final Duration SESSION = Duration.ofSeconds(2);
    private static final Duration BUDGET = Duration.ofSeconds(20);

    private final ExecutorService callbacks = Executors.newSingleThreadExecutor();
    @AfterEach
    void cleanUp() throws Exception {
        callbacks.shutdownNow();
        assertTrue(callbacks.awaitTermination(5, TimeUnit.SECONDS));
    }

    private static ElectionOptions options(String id) {
        return ElectionOptions.builder().participantId(id).requeue(true).build();
    }

    private CoordClient client(String connectString, Duration session) {
        return KIT.client(b -> b.connectString(connectString).sessionTimeout(session).connectionTimeout(session));
    }

    /** An observer whose latest report is kept. */
    private AtomicReference<Optional<LeaderInfo>> observe(Election election) {
        AtomicReference<Optional<LeaderInfo>> view = new AtomicReference<>();
        election.observe(new ElectionListener() {
            @Override
            public void onLeader(LeaderInfo leader) {
                view.set(Optional.of(leader));
            }

            @Override
            public void onNoLeader() {
                view.set(Optional.empty());
            }
        }, callbacks);
        return view;
    }

    private static LeaderInfo awaitActingAbove(AtomicReference<Optional<LeaderInfo>> view, long epoch) throws InterruptedException {
        await(BUDGET, () -> {
            Optional<LeaderInfo> v = view.get();
            return v != null && v.isPresent() && v.get().acting() && v.get().epoch().value() > epoch;
        }, () -> "an acting leader with an epoch above 0x" + Long.toHexString(epoch) + "; observer sees " + view.get());
        return view.get().orElseThrow();
    }

    @Test
    void connectionCutLeaderIsInterruptedBeforeAnyOtherCandidateActsEvenWithNoHandoverGrace() throws Exception {
        ClientProxy proxy = ClientProxy.to(KIT.connectString());
        KIT.track(proxy);
        CoordClient cutClient = client(proxy.connectString(), SESSION);
        CoordClient otherClient = client(KIT.connectString(), SESSION);
        FencedRegister.create(otherClient);
        InMemoryFenceGuard fence = new InMemoryFenceGuard();
        AtomicLong clock = new AtomicLong();
        Map<String, Long> at = new ConcurrentHashMap<>();
        AtomicReference<LeaseState> cutStateWhenStopped = new AtomicReference<>();
        AtomicReference<Leadership> cutLeadership = new AtomicReference<>();
        AtomicInteger cutWrites = new AtomicInteger();
        List<long[]> writes = new CopyOnWriteArrayList<>();

        Election cut = KIT.election(cutClient, "svc", ElectionOptions.builder().participantId("cut").build());
        assertEquals(Duration.ZERO, cut.options().handoverGrace(), "the default grace is 0");
        cut.lead(l -> {
            cutLeadership.set(l);
            try {
                while (true) {
                    l.checkValid();
                    fence.enforce(Invariants.RESOURCE, l.epoch());
                    int version = FencedRegister.write(cutClient, l);
                    writes.add(new long[] {version, l.epoch().value()});
                    at.put("cut wrote", clock.incrementAndGet());
                    cutWrites.incrementAndGet();
                    Thread.sleep(5);
                }
            } catch (InterruptedException | LockLostException e) {
                cutStateWhenStopped.set(l.state());
                at.put("cut stopped", clock.incrementAndGet());
            } catch (Exception e) {
                cutStateWhenStopped.set(l.state());
                at.put("cut stopped", clock.incrementAndGet());
                at.put("cut failed: " + e, 0L);
            }
        });
        await(BUDGET, () -> cutWrites.get() >= 20, () -> "the first leader writes");

        Election other = KIT.election(otherClient, "svc", ElectionOptions.builder().participantId("other").build());
        AtomicReference<Leadership> otherLeadership = new AtomicReference<>();
        other.lead(l -> {
            at.put("other acting", clock.incrementAndGet());
            otherLeadership.set(l);
            fence.enforce(Invariants.RESOURCE, l.epoch());
            try {
                writes.add(new long[] {FencedRegister.write(otherClient, l), l.epoch().value()});
            } catch (InterruptedException e) {
                throw e;
            } catch (Exception e) {
                throw new IllegalStateException("the new leader's fenced write failed", e);
            }
            new java.util.concurrent.CountDownLatch(1).await();
        });
        await(BUDGET, () -> candidatesOf(other) == 2, () -> "the second candidate is in line");

        proxy.freeze();
        await(BUDGET, () -> at.containsKey("other acting") && otherLeadership.get() != null && writes.size() > cutWrites.get(),
                () -> "the other candidate acts after the cut leader's session expires: " + at);

        assertTrue(at.containsKey("cut stopped"), "the cut leader stopped: " + at);
        assertTrue(at.get("cut stopped") < at.get("other acting"),
                "the cut leader stopped (" + at.get("cut stopped") + ") before the other acted (" + at.get("other acting") + ")");
        assertEquals(LeaseState.UNCERTAIN, cutStateWhenStopped.get(),
                "stopped because the connection was SUSPENDED, before the session expired");
        assertTrue(at.get("cut wrote") < at.get("other acting"), "its last write came before the other acted");
        assertEquals(0, fence.rejections(), "no fenced write of the old leader came after the new leader's");
        assertEquals(otherLeadership.get().epoch().value(), fence.highest(Invariants.RESOURCE));
        assertTrue(otherLeadership.get().epoch().isNewerThan(cutLeadership.get().epoch()));
        writes.sort(java.util.Comparator.comparingLong(w -> w[0]));
        assertEquals(otherLeadership.get().epoch().value(), writes.get(writes.size() - 1)[1], "the register's last writer");

        // Control: had the old leader gone on writing, the fence would have refused it.
        proxy.unfreeze();
        await(BUDGET, () -> cutLeadership.get().state() == LeaseState.LOST, () -> "the old leadership is LOST once its client hears");
        assertFalse(fence.admit(Invariants.RESOURCE, cutLeadership.get().epoch()), "the FenceGuard refuses the old epoch");
        assertThrows(io.coord.StaleTokenException.class, () -> FencedRegister.write(cutClient, cutLeadership.get()),
                "the register refuses the old epoch");
        assertThrows(LockLostException.class, () -> cutLeadership.get().guardedSetData(FencedRegister.PATH, new byte[] {'0'}),
                "the old leader's guarded ZooKeeper write is refused");
    }

    private static boolean wrote(Invariants inv, long epoch) {
        return inv.writes.stream().anyMatch(w -> w[1] == epoch);
    }

    private static boolean replaced(AtomicReference<Optional<LeaderInfo>> view, long epoch) {
        return view.get().map(l -> l.epoch().value() > epoch).orElse(false);
    }

    private static int candidatesOf(Election e) {
        try {
            return e.candidates().size();
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new AssertionError(ex);
        }
    }

    private enum Change { RESIGN, CLOSE, EXPIRE, KILL, CHILD_RESIGN }

    /** One in-JVM candidate: its own client behind its own proxy, so it can be cut off alone. */
    private final class Local {
        final ClientProxy proxy;
        final CoordClient client;
        final Invariants inv;
        volatile Election election;
        volatile String id;
        volatile Leadership current;
        int generation;

        Local(int n, Invariants inv) throws InterruptedException {
            this.inv = inv;
            this.proxy = ClientProxy.to(KIT.connectString());
            KIT.track(proxy);
            this.client = client(proxy.connectString(), SESSION);
            this.id = "jvm" + n;
            start();
        }

        void start() {
            generation++;
            String me = id + "." + generation;
            election = KIT.election(client, "svc", options(me));
            election.lead(inv.task(me, client, l -> current = l));
        }

        String participant() {
            return id + "." + generation;
        }
    }

    @Test
    void exactlyOneValidLeadershipAmongFiveCandidatesOverFiftyForcedChanges() throws Exception {
        Invariants inv = new Invariants();
        CoordClient admin = client(KIT.connectString(), Duration.ofSeconds(5));
        FencedRegister.create(admin);
        List<AtomicReference<Optional<LeaderInfo>>> views = List.of(
                observe(KIT.election(client(KIT.connectString(), Duration.ofSeconds(5)), "svc", options("observer1"))),
                observe(KIT.election(client(KIT.connectString(), Duration.ofSeconds(5)), "svc", options("observer2"))));
        Invariants.Sampler sampler = inv.new Sampler();
        KIT.track(sampler);

        Map<String, Local> locals = new ConcurrentHashMap<>();
        for (int n = 1; n <= 4; n++) {
            Local local = new Local(n, inv);
            locals.put(local.id, local);
        }
        AtomicInteger childCount = new AtomicInteger();
        AtomicReference<Child> child = new AtomicReference<>(spawnChild(inv, childCount.incrementAndGet()));
        await(Duration.ofSeconds(40), () -> child.get().lines.contains("READY"),
                () -> "the child candidate is ready: " + child.get().lines + child.get().jvm.stderrTail());

        Map<Change, Integer> done = new EnumMap<>(Change.class);
        Change[] localCycle = {Change.RESIGN, Change.CLOSE, Change.EXPIRE, Change.RESIGN};
        int localChanges = 0;
        List<Long> epochs = new ArrayList<>();
        ClientProxy frozen = null;
        long last = 0;
        int forced = 0;
        int spontaneous = 0;
        while (forced < 50) {
            LeaderInfo leader = awaitActingAbove(views.get(0), last);
            if (frozen != null) {
                frozen.unfreeze(); // the cut-off leader was replaced; let its client come back (on a new session)
                frozen = null;
            }
            long epoch = leader.epoch().value();
            epochs.add(epoch);
            last = epoch;
            // It really acts once it has made a fenced write. On a loaded machine a session can also
            // end on its own (a stalled JVM): then a newer leader comes first, and that is a change
            // we did not force.
            await(BUDGET, () -> wrote(inv, epoch) || replaced(views.get(0), epoch), () -> leader + " made a fenced write");
            String who = leader.id();
            Local local = who.startsWith("child") ? null : locals.get(who.substring(0, who.indexOf('.')));
            await(BUDGET, () -> replaced(views.get(0), epoch) || views.stream().allMatch(v -> v.get()
                    .map(l -> l.epoch().value() == epoch && l.acting()).orElse(false))
                    && (local == null || local.current != null && local.current.epoch().value() == epoch),
                    () -> "both observers converge on " + leader + ": " + views);
            if (!wrote(inv, epoch) || replaced(views.get(0), epoch)) {
                spontaneous++;
                continue;
            }
            forced++;
            if (local == null) {
                Child c = child.get();
                if (done.getOrDefault(Change.KILL, 0) < 5) {
                    c.jvm.kill9(); // no goodbye to ZooKeeper: its session ends by expiry
                    done.merge(Change.KILL, 1, Integer::sum);
                    child.set(spawnChild(inv, childCount.incrementAndGet()));
                } else {
                    c.jvm.send("resign");
                    done.merge(Change.CHILD_RESIGN, 1, Integer::sum);
                }
                continue;
            }
            Change kind = localCycle[localChanges++ % localCycle.length];
            switch (kind) {
                case RESIGN -> local.current.resign();
                case CLOSE -> {
                    local.election.close();
                    local.start();
                }
                case EXPIRE -> {
                    local.proxy.freeze(); // silent partition: SUSPENDED, then the server expires the session
                    frozen = local.proxy;
                }
                default -> throw new AssertionError(kind);
            }
            done.merge(kind, 1, Integer::sum);
        }
        awaitActingAbove(views.get(0), last);
        if (frozen != null) {
            frozen.unfreeze();
        }
        child.get().close();
        for (Local local : locals.values()) {
            local.election.close();
        }
        sampler.close();

        List<Long> written = inv.checkWriteOrder();
        assertEquals(List.of(), inv.violations, "safety violations");
        for (int i = 1; i < epochs.size(); i++) {
            assertTrue(epochs.get(i) > epochs.get(i - 1), "epochs strictly increase: " + epochs);
        }
        assertTrue(written.size() >= 50, "at least 50 leaders wrote the register, in epoch order: " + written.size());
        assertTrue(done.getOrDefault(Change.RESIGN, 0) >= 10 && done.getOrDefault(Change.CLOSE, 0) >= 5
                && done.getOrDefault(Change.EXPIRE, 0) >= 5 && done.getOrDefault(Change.KILL, 0) >= 3,
                "every kind of change happened often enough: " + done);
        System.out.println("forced changes: " + done + "; leaders seen: " + epochs.size() + " (" + spontaneous
                + " changes not forced: sessions that ended on their own); fenced stale writes: " + inv.fenced.get()
                + "; max valid at once: " + sampler.max());
    }

    /** A candidate in a child JVM (so it can be killed with SIGKILL), its stdout read into {@code inv}. */
    private static final class Child implements AutoCloseable {
        final ChildJvm jvm;
        final List<String> lines = new CopyOnWriteArrayList<>();
        private volatile boolean running = true;
        private final Thread pump;

        Child(ChildJvm jvm, java.util.function.Consumer<String> onLine) {
            this.jvm = jvm;
            this.pump = new Thread(() -> {
                while (running) {
                    jvm.readLine(Duration.ofMillis(200)).ifPresent(line -> {
                        lines.add(line);
                        onLine.accept(line);
                    });
                }
            }, "child-" + jvm.pid() + "-lines");
            pump.setDaemon(true);
            pump.start();
        }

        @Override
        public void close() throws InterruptedException {
            if (jvm.isAlive()) {
                try {
                    jvm.send("quit");
                    jvm.awaitExit(Duration.ofSeconds(10));
                } catch (AssertionError | java.io.UncheckedIOException slowOrGone) {
                    // close() below kills it
                }
            }
            jvm.close();
            running = false;
            pump.join(5000);
        }
    }

    private Child spawnChild(Invariants inv, int n) throws Exception {
        String id = "child" + n;
        ChildJvm jvm = ChildJvm.builder(ChildCandidate.class.getName())
                .jvmOption("-Xmx64m").jvmOption("-XX:TieredStopAtLevel=1")
                .args(KIT.connectString(), KIT.namespace(), "svc", id, Long.toString(SESSION.toMillis()))
                .start();
        Child child = new Child(jvm, line -> {
            String[] parts = line.split(" ");
            switch (parts[0]) {
                case "ACTING" -> inv.claim(Long.parseLong(parts[1]), id);
                case "WROTE" -> inv.wrote(Integer.parseInt(parts[1]), Long.parseLong(parts[2]));
                case "ERROR" -> inv.violations.add(id + ": " + line);
                default -> {
                }
            }
        });
        KIT.track(child);
        return child; // joins the line once it has connected; nothing waits for that

    }

    @Test
    void ensembleLeaderKilledTheElectionRecoversWithAtMostOneLeader() throws Exception {
        // Tracked first, so closed last: elections, then clients, then the servers.
        EmbeddedEnsemble ensemble = KIT.track(EmbeddedEnsemble.start(EmbeddedEnsemble.Options.quorum()));
        Invariants inv = new Invariants();
        Duration session = Duration.ofSeconds(6); // outlives the ensemble's own re-election
        CoordClient admin = quorumClient(ensemble, session);
        FencedRegister.create(admin);
        AtomicReference<Optional<LeaderInfo>> view = observe(KIT.election(quorumClient(ensemble, session), "svc", options("observer")));
        for (int n = 1; n <= 3; n++) {
            CoordClient c = quorumClient(ensemble, session);
            String id = "cand" + n;
            KIT.election(c, "svc", options(id)).lead(inv.task(id, c, l -> { }));
        }
        Invariants.Sampler sampler = KIT.track(inv.new Sampler());
        LeaderInfo before = awaitActingAbove(view, 0);
        await(BUDGET, () -> inv.writes.size() >= 20, () -> "the leader writes");
        int writesBefore = inv.writes.size();
        int killed = Faults.killLeader(ensemble);
        await(Duration.ofSeconds(30), () -> inv.writes.size() > writesBefore + 20,
                () -> "fenced writes resume after the ZooKeeper leader was killed");
        long highest = inv.writes.stream().mapToLong(w -> w[1]).max().orElseThrow();
        await(BUDGET, () -> view.get().map(l -> l.acting() && l.epoch().value() >= highest).orElse(false),
                () -> "the observer converges on the leader that writes: " + view.get());
        assertTrue(view.get().orElseThrow().epoch().value() >= before.epoch().value(), "the epoch never goes back");
        Faults.restore(ensemble, List.of(killed));
        sampler.close();
        inv.checkWriteOrder();
        assertEquals(List.of(), inv.violations, "safety violations (two valid leaderships, refused writes while valid, shared epochs)");
        assertEquals(1, sampler.max(), "a leadership was valid throughout the samples, and never two");
        System.out.println("after the ZooKeeper leader kill: acting starts " + inv.actingStarts.get() + ", fenced " + inv.fenced.get());
    }

    private static CoordClient quorumClient(EmbeddedEnsemble ensemble, Duration session) throws InterruptedException {
        return KIT.track(CoordClient.connect(io.coord.CoordSettings.builder().connectString(ensemble.connectString())
                .namespace(KIT.namespace()).sessionTimeout(session).connectionTimeout(session).build()));
    }

    @Test
    void serverSideSessionKillWithAHandoverGraceLetsTheOldLeaderStopFirst() throws Exception {
        CoordClient oldClient = client(KIT.connectString(), Duration.ofSeconds(5));
        CoordClient newClient = client(KIT.connectString(), Duration.ofSeconds(5));
        AtomicLong clock = new AtomicLong();
        Map<String, Long> at = new ConcurrentHashMap<>();
        Election old = KIT.election(oldClient, "svc", ElectionOptions.builder().participantId("old").build());
        old.lead(l -> {
            at.put("old acting", clock.incrementAndGet());
            try {
                new java.util.concurrent.CountDownLatch(1).await();
            } finally {
                at.put("old stopped", clock.incrementAndGet());
            }
        });
        await(BUDGET, () -> at.containsKey("old acting"), () -> "old leads");
        Election next = KIT.election(newClient, "svc", ElectionOptions.builder().participantId("new")
                .handoverGrace(Duration.ofSeconds(1)).build());
        next.lead(l -> {
            at.put("new acting", clock.incrementAndGet());
            new java.util.concurrent.CountDownLatch(1).await();
        });
        await(BUDGET, () -> candidatesOf(next) == 2, () -> "new is in line");
        // The server ends old's session while old's client is connected: it learns only when the
        // server drops the connection. The grace gives it that time.
        Faults.expireSession(oldClient, KIT.ensemble());
        await(BUDGET, () -> at.containsKey("new acting"), () -> "new acts: " + at);
        assertTrue(at.get("old stopped") < at.get("new acting"), "old stopped first: " + at);
    }
}
