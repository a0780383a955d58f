package io.coord.barrier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.BarrierBrokenException;
import io.coord.CoordClient;
import io.coord.barrier.BarrierStatus.Phase;
import io.coord.test.Awaits;
import io.coord.test.Faults;
import io.coord.test.ZooKeeperExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher.Event.EventType;
import org.apache.zookeeper.Watcher.Event.KeeperState;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link DoubleBarrier#enterAsync} and {@link BarrierSeat#leaveAsync} against a real ZooKeeper:
 * the same decisions as the sync calls, completions on the caller's executor, no thread held
 * while pending, and cancelling withdraws what the call queued.
 */
class AsyncBarrierIT {
    private static final Duration LONG = Duration.ofSeconds(60);
    private static final Duration BOUND = Awaits.scaled(Duration.ofSeconds(20));

    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.single();

    private final AtomicInteger callerThreads = new AtomicInteger();
    private final ExecutorService callers = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "caller-executor-" + callerThreads.incrementAndGet());
        t.setDaemon(true);
        return t;
    });

    @AfterEach
    void stopCallers() throws InterruptedException {
        callers.shutdownNow();
        assertTrue(callers.awaitTermination(10, TimeUnit.SECONDS), "executor threads ended");
    }

    private static <T> T get(CompletableFuture<T> f) throws Exception {
        try {
            return f.get(BOUND.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof Exception ex ? ex : e;
        } catch (TimeoutException e) {
            throw new AssertionError("an async barrier call did not complete within " + BOUND + " (a hang)", e);
        }
    }

    private DoubleBarrier member(CoordClient client, String name, int parties, String id) {
        return DoubleBarrier.create(client, name, parties, BarrierOptions.builder().memberId(id).build());
    }

    private static List<String> seatsOf(CoordClient client, Generation g) throws Exception {
        return client.curator().getChildren().forPath(g.members().value());
    }

    @Test
    void cancellingAPendingEnterWithdrawsItsSeatAndTheOthersMeetTheCountWithoutIt() throws Exception {
        CoordClient observer = zk.newClient();
        DoubleBarrier a = member(zk.newClient(), "withdraw", 3, "a");
        DoubleBarrier quitter = member(zk.newClient(), "withdraw", 3, "quitter");
        CompletableFuture<BarrierSeat> first = a.enterAsync(LONG, callers);
        Awaits.until("a waits", BOUND, () -> DoubleBarrierIT.arrived(a, 1));
        CompletableFuture<BarrierSeat> cancelled = quitter.enterAsync(LONG, callers);
        Awaits.until("the quitter waits too", BOUND, () -> DoubleBarrierIT.arrived(a, 2));
        assertTrue(cancelled.cancel(false));
        Generation g = new Generation(Generation.rootOf("withdraw"), 1);
        Awaits.until("the quitter's seat is gone", BOUND, () -> {
            try {
                return seatsOf(observer, g).stream().noneMatch(n -> n.startsWith("m-quitter-"));
            } catch (Exception e) {
                return false;
            }
        });
        assertFalse(first.isDone(), "withdrawing is not a decision: a still waits");
        assertEquals(Phase.OPEN, a.status().phase(), "nothing broke");

        // Two more arrive: with the quitter withdrawn, they and a are the three parties.
        CompletableFuture<BarrierSeat> second = member(zk.newClient(), "withdraw", 3, "b").enterAsync(LONG, callers);
        assertFalse(second.isDone());
        Awaits.hold(Duration.ofMillis(300));
        assertFalse(first.isDone() || second.isDone(), "two of three (the withdrawn seat does not count)");
        BarrierSeat last = member(zk.newClient(), "withdraw", 3, "c").enter(LONG);
        List<BarrierSeat> seats = List.of(get(first), get(second), last);
        assertTrue(seats.stream().allMatch(s -> s.generation() == 1), seats.toString());
        assertEquals(Phase.READY, a.status().phase());
        assertTrue(cancelled.isCancelled());

        List<CompletableFuture<Void>> leaving = new ArrayList<>();
        for (BarrierSeat s : seats) {
            leaving.add(s.leaveAsync(LONG, callers));
        }
        for (CompletableFuture<Void> f : leaving) {
            get(f);
        }
        assertEquals(Phase.DONE, a.status().phase());
        assertTrue(seatsOf(observer, g).stream().noneMatch(n -> n.startsWith("m-quitter-")), "no node of the quitter's");
    }

    @Test
    void completionsRunOnTheCallersExecutorNeverOnAnEventThread() throws Exception {
        List<String> completedOn = new CopyOnWriteArrayList<>();
        DoubleBarrier a = member(zk.newClient(), "executor", 2, "a");
        DoubleBarrier b = member(zk.newClient(), "executor", 2, "b");
        CompletableFuture<BarrierSeat> waiting = a.enterAsync(LONG, callers);
        waiting.whenComplete((s, e) -> completedOn.add("enter(waited):" + Thread.currentThread().getName()));
        Awaits.until("a waits", BOUND, () -> DoubleBarrierIT.arrived(a, 1));
        CompletableFuture<BarrierSeat> completing = b.enterAsync(LONG, callers);
        // Wait for the record before any get() of the same future: a thread in get() may run
        // pending dependents itself (CompletableFuture helps), which would hide the completing thread.
        Awaits.until("the enter's completion recorded", BOUND, () -> completedOn.size() == 1);
        BarrierSeat seatB = get(completing);
        BarrierSeat seatA = get(waiting);
        CompletableFuture<Void> leftA = seatA.leaveAsync(LONG, callers);
        leftA.whenComplete((v, e) -> completedOn.add("leave(waited):" + Thread.currentThread().getName()));
        Awaits.until("a left", BOUND, () -> DoubleBarrierIT.left(a, 1));
        CompletableFuture<Void> leftB = seatB.leaveAsync(LONG, callers);
        Awaits.until("both completions recorded", BOUND, () -> completedOn.size() == 2);
        get(leftB);
        get(leftA);
        for (String c : completedOn) {
            assertTrue(c.contains(":caller-executor-"), "completed on the caller's executor: " + completedOn);
        }
        // the default executor: CompletableFuture's (the common pool), never an event thread
        DoubleBarrier c = member(zk.newClient(), "executor", 2, "c");
        DoubleBarrier d = member(zk.newClient(), "executor", 2, "d");
        CompletableFuture<BarrierSeat> byDefault = c.enterAsync(LONG);
        List<String> defaultThread = new CopyOnWriteArrayList<>();
        byDefault.whenComplete((s, e) -> defaultThread.add(Thread.currentThread().getName()));
        Awaits.until("c waits", BOUND, () -> DoubleBarrierIT.arrived(c, 1));
        BarrierSeat seatD = d.enter(LONG);
        Awaits.until("recorded", BOUND, () -> defaultThread.size() == 1);
        BarrierSeat seatC = get(byDefault);
        assertFalse(defaultThread.get(0).contains("EventThread") || defaultThread.get(0).startsWith("coord-"),
                "the default completion ran on " + defaultThread);
        CompletableFuture<Void> l = seatC.leaveAsync(LONG);
        seatD.leave(LONG);
        get(l);
    }

    @Test
    void aPendingEnterTimesOutOnItsOwnDeadlineAndBreaksTheGeneration() throws Exception {
        DoubleBarrier alone = member(zk.newClient(), "timeout", 2, "alone");
        Duration timeout = Duration.ofMillis(800);
        long start = System.nanoTime();
        CompletableFuture<BarrierSeat> f = alone.enterAsync(timeout, callers);
        BarrierBrokenException e = assertThrows(BarrierBrokenException.class, () -> get(f));
        long took = System.nanoTime() - start;
        assertTrue(took >= timeout.toNanos(), "not before its timeout: " + took / 1_000_000 + " ms");
        assertTrue(e.getMessage().contains("timed out"), e.getMessage());
        assertEquals(Phase.BROKEN, alone.status().phase());
        Generation g = new Generation(Generation.rootOf("timeout"), 1);
        CoordClient observer = zk.newClient();
        Awaits.until("its seat is closed", BOUND, () -> {
            try {
                return seatsOf(observer, g).stream().noneMatch(n -> n.startsWith("m-"));
            } catch (Exception ex) {
                return false;
            }
        });
        assertThrows(IllegalArgumentException.class, () -> alone.enterAsync(Duration.ZERO, callers));
        assertThrows(IllegalArgumentException.class, () -> alone.enterAsync(LONG, null));
    }

    @Test
    @Tag("fault")
    void aMemberWhoseSessionExpiresFailsThePendingAsyncEntersFastNamingIt() throws Exception {
        Duration victimSession = Duration.ofSeconds(2);
        List<CompletableFuture<BarrierSeat>> waiting = new ArrayList<>();
        DoubleBarrier first = member(zk.newClient(), "expire-async", 4, "w0");
        waiting.add(first.enterAsync(LONG, callers));
        waiting.add(member(zk.newClient(), "expire-async", 4, "w1").enterAsync(LONG, callers));
        CoordClient victimClient = zk.newClient(b -> b.sessionTimeout(victimSession));
        CompletableFuture<BarrierSeat> victim = member(victimClient, "expire-async", 4, "victim").enterAsync(LONG, callers);
        Awaits.until("three members wait", BOUND, () -> DoubleBarrierIT.arrived(first, 3));
        long expired = System.nanoTime();
        Faults.expireSession(victimClient, zk.ensemble());
        for (CompletableFuture<BarrierSeat> f : waiting) {
            BarrierBrokenException e = assertThrows(BarrierBrokenException.class, () -> get(f));
            assertTrue(e.getMessage().contains("victim") || e.getMessage().contains("vanished before anyone read its name"),
                    e.getMessage());
        }
        Duration within = victimSession.plus(Awaits.scaled(Duration.ofSeconds(3)));
        long took = System.nanoTime() - expired;
        assertTrue(took < within.toNanos(), "failed within " + within.toMillis() + " ms (took " + took / 1_000_000 + " ms)");
        assertThrows(Exception.class, () -> get(victim), "the victim's call ends too (its seat went with its session)");
    }

    @Test
    void thirtyTwoMembersEnterAsyncFromOneClientAndAPendingCallHoldsNoThread() throws Exception {
        int n = 32;
        CoordClient one = zk.newClient();
        List<DoubleBarrier> members = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            members.add(member(one, "one-client", n, "m" + i));
        }
        List<CompletableFuture<BarrierSeat>> entering = new ArrayList<>();
        for (int i = 0; i < n - 1; i++) {
            entering.add(members.get(i).enterAsync(LONG, callers));
        }
        Awaits.until("31 wait", BOUND, () -> DoubleBarrierIT.arrived(members.get(0), n - 1));
        Awaits.until("no thread is inside an enter: the 31 pending calls hold none", BOUND,
                () -> stepThreadsInside("io.coord.barrier.Entering").isEmpty());
        assertTrue(entering.stream().noneMatch(CompletableFuture::isDone), "nobody passed with 31 of 32");
        entering.add(members.get(n - 1).enterAsync(LONG, callers));
        List<BarrierSeat> seats = new ArrayList<>();
        for (CompletableFuture<BarrierSeat> f : entering) {
            seats.add(get(f));
        }
        assertEquals(n, seats.stream().map(BarrierSeat::sequence).collect(Collectors.toSet()).size(), "32 distinct seats");
        assertTrue(seats.stream().allMatch(s -> s.generation() == 1));
        List<CompletableFuture<Void>> leaving = new ArrayList<>();
        for (BarrierSeat s : seats) {
            leaving.add(s.leaveAsync(LONG, callers));
        }
        for (CompletableFuture<Void> f : leaving) {
            get(f);
        }
        assertEquals(Phase.DONE, members.get(0).status().phase());
    }

    /**
     * Issue 18: async steps run on a thread the client owns (its on-demand callback thread), not
     * on a JVM-wide pool that outlives every client: once the calls are over, no
     * {@code coord-barrier-step-N} thread is left (the old cached pool kept each for 60 s idle, and
     * for the JVM's life across clients).
     */
    @Test
    void asyncStepsRunOnTheClientsOwnThreadNotOnAJvmWidePool() throws Exception {
        CoordClient ca = zk.newClient();
        CoordClient cb = zk.newClient();
        DoubleBarrier a = member(ca, "own-threads", 2, "a");
        DoubleBarrier b = member(cb, "own-threads", 2, "b");
        List<String> stepThreads = new CopyOnWriteArrayList<>();
        CompletableFuture<BarrierSeat> enteringA = a.enterAsync(LONG, callers);
        Awaits.until("a waits", BOUND, () -> DoubleBarrierIT.arrived(a, 1));
        CompletableFuture<BarrierSeat> enteringB = b.enterAsync(LONG, callers);
        BarrierSeat seatA = get(enteringA);
        BarrierSeat seatB = get(enteringB);
        CompletableFuture<Void> leftA = seatA.leaveAsync(LONG, callers);
        CompletableFuture<Void> leftB = seatB.leaveAsync(LONG, callers);
        get(leftA);
        get(leftB);
        Thread.getAllStackTraces().keySet().forEach(t -> stepThreads.add(t.getName()));
        assertTrue(stepThreads.stream().noneMatch(name -> name.startsWith("coord-barrier-step")),
                "no JVM-wide barrier step thread: " + stepThreads.stream().filter(n -> n.startsWith("coord-")).sorted().toList());
        assertEquals(Phase.DONE, a.status().phase());
    }

    /** Threads whose stack is inside {@code className} right now. */
    private static Set<String> stepThreadsInside(String className) {
        return Thread.getAllStackTraces().entrySet().stream()
                .filter(e -> Arrays.stream(e.getValue()).anyMatch(f -> f.getClassName().equals(className)))
                .map(e -> e.getKey().getName())
                .collect(Collectors.toSet());
    }

    @Test
    void sessionEventsAndQueuedEventsDoNotCompleteAPendingEnterOrLeave() throws Exception {
        List<CoordClient> clients = new ArrayList<>();
        List<DoubleBarrier> barriers = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            CoordClient c = zk.newClient();
            clients.add(c);
            barriers.add(member(c, "spurious-async", 3, "m" + i));
        }
        List<CompletableFuture<BarrierSeat>> entering = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            entering.add(barriers.get(i).enterAsync(LONG, callers));
        }
        Awaits.until("two wait", BOUND, () -> DoubleBarrierIT.arrived(barriers.get(0), 2));
        Generation g = new Generation(Generation.rootOf("spurious-async"), 1);
        for (int round = 0; round < 20; round++) {
            for (int i = 0; i < 2; i++) {
                inject(clients.get(i), g);
            }
        }
        Awaits.never("a pending enter completed before the third arrived", Duration.ofSeconds(2),
                () -> entering.stream().anyMatch(CompletableFuture::isDone));
        BarrierSeat last = barriers.get(2).enter(LONG);
        List<BarrierSeat> seats = new ArrayList<>();
        for (CompletableFuture<BarrierSeat> f : entering) {
            seats.add(get(f));
        }
        List<CompletableFuture<Void>> leaving = new ArrayList<>();
        for (BarrierSeat s : seats) {
            leaving.add(s.leaveAsync(LONG, callers));
        }
        Awaits.until("two left", BOUND, () -> DoubleBarrierIT.left(barriers.get(0), 2));
        for (int round = 0; round < 20; round++) {
            for (int i = 0; i < 2; i++) {
                inject(clients.get(i), g);
            }
        }
        Awaits.never("a pending leave completed before the third left", Duration.ofSeconds(2),
                () -> leaving.stream().anyMatch(CompletableFuture::isDone));
        last.leave(LONG);
        for (CompletableFuture<Void> f : leaving) {
            get(f);
        }
    }

    /** Queued events (no zxid: never sent by a server) for every path a waiter watches, and a connection flap. */
    private static void inject(CoordClient client, Generation g) throws Exception {
        ZooKeeper h = client.curator().getZookeeperClient().getZooKeeper();
        String ns = "/" + zk.namespace();
        h.getTestable().queueEvent(new WatchedEvent(EventType.NodeDataChanged, KeeperState.SyncConnected, ns + g.root().value()));
        h.getTestable().queueEvent(new WatchedEvent(EventType.NodeChildrenChanged, KeeperState.SyncConnected, ns + g.members().value()));
        // the decision node's READY (data changed) and break (deleted), with no zxid: never sent by a server
        for (EventType type : List.of(EventType.NodeDataChanged, EventType.NodeDeleted)) {
            h.getTestable().queueEvent(new WatchedEvent(type, KeeperState.SyncConnected, ns + g.marker(Generation.DECISION).value()));
        }
        for (String marker : List.of(Generation.READY, Generation.DONE)) {
            h.getTestable().queueEvent(new WatchedEvent(EventType.NodeCreated, KeeperState.SyncConnected, ns + g.marker(marker).value()));
        }
        Faults.spuriousFlap(client);
    }

    @Test
    void cancellingAPendingLeaveAfterItsMarkerLetsTheOthersFinish() throws Exception {
        DoubleBarrier a = member(zk.newClient(), "cancel-leave", 2, "a");
        DoubleBarrier b = member(zk.newClient(), "cancel-leave", 2, "b");
        CompletableFuture<BarrierSeat> enteringA = a.enterAsync(LONG, callers);
        BarrierSeat seatB = b.enter(LONG);
        BarrierSeat seatA = get(enteringA);
        CompletableFuture<Void> leavingA = seatA.leaveAsync(LONG, callers);
        Awaits.until("a's marker is in place", BOUND, () -> DoubleBarrierIT.left(a, 1));
        assertTrue(leavingA.cancel(false));
        Awaits.until("a's seat is released", BOUND, () -> seatA.state() != io.coord.LeaseState.ACQUIRED);
        seatB.leave(LONG); // a left: b finishes, nothing broke
        assertEquals(Phase.DONE, b.status().phase());
        assertThrows(java.util.concurrent.CancellationException.class, leavingA::join);
    }
}
