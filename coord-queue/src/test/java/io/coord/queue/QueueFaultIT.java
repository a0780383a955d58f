package io.coord.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.ConnectionLostException;
import io.coord.CoordClient;
import io.coord.CoordTimeoutException;
import io.coord.SessionExpiredException;
import io.coord.test.Awaits;
import io.coord.test.ChildJvm;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.CreateMode;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import io.coord.test.ZooKeeperExtension;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Consumers in child JVMs, killed (SIGKILL) or expired (server-side session expiry) mid-task, and a
 * stale consumer paused (SIGSTOP) past its session. The completion record is written in each
 * completion's own transaction ({@code /records/<task>-<seq>}), so a second accepted completion of
 * one task would show up as a second record.
 */
@Tag("fault")
class QueueFaultIT {
    @RegisterExtension
    @Order(1)
    static final ZooKeeperExtension ZOOKEEPER = ZooKeeperExtension.single();
    @RegisterExtension
    @Order(2)
    static final QueueServer ZK = QueueServer.on(ZOOKEEPER);

    private static final int TASKS = 2000;
    private static final int CONSUMERS = 4;
    /** K = kill -9 of a consumer mid-task, E = its session expired mid-task. */
    private static final String FAULTS = "KEKKEKEKKE";

    @Test
    void everyTaskIsCompletedExactlyOnceWhileConsumersAreKilledAndExpiredMidTask() throws Exception {
        Fixture f = fixture();
        CuratorFramework curator = f.curator();
        TaskQueue<Job> queue = f.queue();
        List<TaskId> ids = new ArrayList<>();
        List<Job> batch = new ArrayList<>();
        for (int i = 0; i < TASKS; i++) {
            batch.add(new Job("t", i));
            if (batch.size() == 200) {
                ids.addAll(queue.enqueueAll(batch));
                batch.clear();
            }
        }
        assertEquals(TASKS, ids.size());

        Map<Integer, ChildJvm> children = new HashMap<>();
        Booking book = new Booking();
        Random random = new Random(42);
        int nextId = 0;
        int kills = 0;
        int expiries = 0;
        int faultClaims = 0;
        try {
            for (int i = 0; i < CONSUMERS; i++) {
                children.put(nextId++, consumer("12"));
            }
            // Two bounds: the run must keep moving (a completion at least every 60 s) and end within
            // 10 minutes. Slow is not wrong: about 30 s on a quiet machine, over 150 s on a heavily loaded one.
            Duration stall = Awaits.scaled(Duration.ofSeconds(60));
            Duration budget = Awaits.scaled(Duration.ofMinutes(10));
            long deadline = System.nanoTime() + budget.toNanos();
            long lastProgress = System.nanoTime();
            int doneBefore = 0;
            int applied = 0;
            long lastCheck = 0;
            while (true) {
                if (book.dones.size() > doneBefore) {
                    doneBefore = book.dones.size();
                    lastProgress = System.nanoTime();
                }
                assertTrue(System.nanoTime() - lastProgress < stall.toNanos() && System.nanoTime() < deadline,
                        "no completion within " + stall + " or not done within " + budget + ": " + remaining(curator)
                                + " tasks left, " + book.dones.size() + " reported done, faults applied " + applied);
                boolean read = false;
                for (Map.Entry<Integer, ChildJvm> c : children.entrySet()) {
                    Optional<String> l = c.getValue().readLine(Duration.ZERO);
                    if (l.isPresent()) {
                        book.line(c.getKey(), l.get());
                        read = true;
                    }
                }
                if (!read) {
                    // nothing pending anywhere: wait a little on one child (bounded), then look again
                    Map.Entry<Integer, ChildJvm> first = children.entrySet().iterator().next();
                    first.getValue().readLine(Duration.ofMillis(5)).ifPresent(l -> book.line(first.getKey(), l));
                }
                // Next fault once enough progress was made since the last, on a consumer that is mid-task.
                if (applied < FAULTS.length() && book.dones.size() >= (applied + 1) * 150) {
                    List<Integer> busy = children.keySet().stream()
                            .filter(c -> "START".equals(book.lastLine.get(c)) && children.get(c).isAlive()).toList();
                    if (!busy.isEmpty()) {
                        int victim = busy.get(random.nextInt(busy.size()));
                        boolean kill = FAULTS.charAt(applied) == 'K';
                        ChildJvm child = children.get(victim);
                        // What the fault interrupts is what the victim's session holds on the server
                        // when it is applied, not the last task it printed: stop it, read its claims on
                        // its own session, then apply the fault (see SessionTwin).
                        child.pause();
                        Optional<List<SessionTwin.Claim>> held = SessionTwin.claimsHeld(ZK.ensemble().connectString(),
                                book.sessions.get(victim), claimsPath(), kill ? SessionTwin.Then.LEAVE_TO_TIME_OUT
                                        : SessionTwin.Then.END_SESSION);
                        if (held.isEmpty()) {
                            // Its session had already ended on its own (load): not this fault's doing.
                            // Its LOST lines will book what that cost; try the fault again later.
                            System.out.println("fault " + applied + ": child " + victim + "'s session had already ended; trying again");
                            child.resume();
                            book.lastLine.remove(victim);
                            continue;
                        }
                        String fault = (kill ? "kill of child " : "expiry of child ") + victim;
                        held.get().forEach(claim -> book.interrupted(claim, fault));
                        faultClaims += held.get().size();
                        if (kill) {
                            children.remove(victim);
                            child.kill9();
                            book.drain(victim, child); // its last lines, up to the end of its output
                            child.close();
                            children.put(nextId++, consumer("12"));
                            kills++;
                        } else {
                            child.resume(); // it finds its session gone; its claims run again elsewhere
                            expiries++;
                        }
                        // The newest zxid now: every claim of the ended session has a lower token.
                        long zxidAfter = curator.setData().forPath("/records").getMzxid();
                        System.out.println("fault " + applied + ": " + fault + " holding " + held.get() + ", zxid after it " + zxidAfter);
                        book.sessionEnded(victim, zxidAfter);
                        book.lastLine.remove(victim);
                        applied++;
                    }
                }
                if (System.nanoTime() - lastCheck > 200_000_000L) {
                    lastCheck = System.nanoTime();
                    for (int i = reapExited(children, book); i > 0; i--) {
                        children.put(nextId++, consumer("12"));
                    }
                    if (remaining(curator) == 0) {
                        break;
                    }
                }
            }
            assertEquals(FAULTS.length(), applied, "every scheduled fault was applied");
            // Every line every consumer printed is booked: an expired victim may report what it lost
            // only after the queue is empty.
            reapExited(children, book);
            for (Map.Entry<Integer, ChildJvm> c : children.entrySet()) {
                c.getValue().send("STOP");
            }
            for (Map.Entry<Integer, ChildJvm> c : children.entrySet()) {
                book.drainUntilBye(c.getKey(), c.getValue());
            }
        } finally {
            children.values().forEach(ChildJvm::close);
        }

        // Exactly once: one record per task, none missing, none extra.
        Map<String, Long> completedBy = new TreeMap<>();
        List<String> duplicated = new ArrayList<>();
        for (String r : curator.getChildren().forPath("/records")) {
            String task = r.substring(0, r.lastIndexOf('-'));
            long token = Long.parseLong(new String(curator.getData().forPath("/records/" + r), StandardCharsets.UTF_8));
            if (completedBy.put(task, token) != null) {
                duplicated.add(task);
            }
        }
        assertTrue(duplicated.isEmpty(), "tasks completed more than once: " + duplicated);
        List<String> missing = ids.stream().map(TaskId::name).filter(n -> !completedBy.containsKey(n)).toList();
        assertTrue(missing.isEmpty(), "tasks never completed: " + missing);
        assertEquals(TASKS, completedBy.size());
        assertTrue(book.dones.values().stream().allMatch(n -> n == 1), "a task reported DONE twice");
        assertTrue(queue.deadLetters().isEmpty(), "nothing was dead-lettered: " + queue.deadLetters());
        assertEquals(0, queue.stats().depth());
        assertTrue(kills > 0 && expiries > 0 && faultClaims > 0, "the faults interrupted claims: " + faultClaims);

        // Every execution (START) is either the one whose completion committed, or one whose claim
        // was really interrupted: held by a session a fault ended (read on the server at the fault),
        // refused at completion (LOST), or completed indeterminately (ABORT).
        List<String> unbooked = completedBy.entrySet().stream()
                .filter(e -> !book.starts.getOrDefault(e.getKey(), List.of()).contains(e.getValue()))
                .map(e -> e.getKey() + "@" + e.getValue()).toList();
        assertTrue(unbooked.isEmpty(), "completions whose START the harness never read: " + unbooked);
        List<String> unexplained = new ArrayList<>();
        int extra = 0;
        for (Map.Entry<String, List<Long>> e : book.starts.entrySet()) {
            for (long token : e.getValue()) {
                if (token == completedBy.get(e.getKey())) {
                    continue;
                }
                extra++;
                if (!book.explains(new SessionTwin.Claim(e.getKey(), token))) {
                    unexplained.add(e.getKey() + "@" + token);
                }
            }
        }
        assertTrue(unexplained.isEmpty(), "executions no fault interrupted: " + unexplained + "; interrupted " + book.interrupted
                + "; failed completions " + book.failed);
        System.out.printf("queue fault run: %d tasks, %d kills, %d expiries holding %d claims, %d extra executions,"
                + " each of an interrupted claim (%s), 0 duplicate completions, 0 lost, 0 dead-lettered%n", TASKS, kills,
                expiries, faultClaims, extra, book.causes());
    }

    /**
     * Why the main test books the server's view: a consumer completes task A and claims the next, B,
     * in one transaction, so it holds B before it prints anything about it. A fault then interrupts
     * B while the last line the harness has is still {@code START A}; and the expired consumer only
     * says {@code LOST B} once it has found out, seconds later, possibly after the queue is empty.
     * Deterministic: each task takes 1.5–4.5 s, so the fault lands while B is held.
     */
    @Test
    void aCompletionClaimsTheNextTaskInItsTransactionSoTheFaultInterruptsATaskNotYetReported() throws Exception {
        Fixture f = fixture();
        CuratorFramework curator = f.curator();
        TaskQueue<Job> queue = f.queue();
        List<TaskId> ids = queue.enqueueAll(List.of(new Job("a", 0), new Job("b", 1)));
        // A session the server keeps through a loaded machine's stalls: this test ends it itself.
        ChildJvm child = consumer("3000", Duration.ofSeconds(10));
        SessionTwin.Credentials session = Booking.credentials(awaitLine(child, "SESSION", Duration.ofSeconds(30)));
        String startA = awaitLine(child, "START", Duration.ofSeconds(30));
        assertTrue(startA.contains(ids.get(0).name()), startA);
        String a = ids.get(0).name();
        String b = ids.get(1).name();
        QueueServer.await("task A completed", Duration.ofSeconds(30), () -> records(curator, a).size() == 1);
        long completionZxid = curator.checkExists().forPath("/records/" + records(curator, a).get(0)).getCzxid();

        child.pause();
        List<SessionTwin.Claim> held;
        try {
            held = SessionTwin.claimsHeld(ZK.ensemble().connectString(), session, claimsPath(), SessionTwin.Then.END_SESSION)
                    .orElseThrow(() -> new AssertionError("the consumer's session ended before the fault"));
        } finally {
            child.resume();
        }
        // The expiry took B, whose claim committed in A's completion (same zxid): the last START the
        // harness could have read names A, which was already complete.
        assertEquals(List.of(new SessionTwin.Claim(b, completionZxid)), held);
        long expired = System.nanoTime();
        TaskClaim<Job> again = queue.claim(Awaits.scaled(Duration.ofSeconds(15))).orElseThrow(() -> new AssertionError("B never came back"));
        assertEquals(ids.get(1), again.id());
        assertTrue(again.token().value() > completionZxid, "B's new claim is newer than the expired one");
        again.complete();
        long empty = System.nanoTime();
        assertEquals(0, remaining(curator));
        String lost = awaitLine(child, "LOST", Duration.ofSeconds(30));
        assertEquals("LOST " + b + " " + completionZxid, lost);
        System.out.printf("next-claim booking: A=%s completed at zxid %d, which also claimed B=%s; the expiry interrupted B;"
                        + " B ran again and the queue was empty %d ms after the expiry; the victim's LOST line came %d ms after it%n",
                a, completionZxid, b, (empty - expired) / 1_000_000, (System.nanoTime() - expired) / 1_000_000);
    }

    @Test
    void aConsumerPausedPastItsSessionCannotCompleteAndTheReclaimerCompletesOnce() throws Exception {
        Fixture f = fixture();
        CuratorFramework curator = f.curator();
        TaskQueue<Job> queue = f.queue();
        TaskId id = queue.enqueue(new Job("slow", 0));
        ChildJvm stale = consumer("4000");
        String started = awaitLine(stale, "START", Duration.ofSeconds(30));
        assertTrue(started.contains(id.name()), started);
        long staleToken = Long.parseLong(started.split(" ")[2]);
        stale.pause();
        try {
            // Its session (2 s) expires on the server while it is stopped; its claim node goes with it.
            TaskClaim<Job> fresh = queue.claim(Awaits.scaled(Duration.ofSeconds(15))).orElseThrow(
                    () -> new AssertionError("the paused consumer's task never came back"));
            assertEquals(id, fresh.id());
            assertTrue(fresh.token().value() > staleToken, "the new claim's token is higher");
            fresh.completeWith(List.of(curator.transactionOp().create().withMode(CreateMode.PERSISTENT_SEQUENTIAL)
                    .forPath("/records/" + id.name() + "-", Long.toString(fresh.token().value()).getBytes(StandardCharsets.UTF_8))));
        } finally {
            stale.resume();
        }
        // Refused (LOST: the ending was never sent, or its look at the task shows it did not commit), or,
        // when the ending left on the old connection just before that dropped, told that its outcome
        // cannot be known any more (OutcomeUnknownException): the claim is over and no call can tell.
        // Never DONE: that is what the single completion record below also shows.
        String outcome = awaitOutcome(stale, id.name(), Duration.ofSeconds(30));
        assertTrue(outcome.startsWith("LOST ") || outcome.endsWith(" " + OutcomeUnknownException.class.getSimpleName()),
                "the stale consumer's completion was refused, or reported unknown: " + outcome);
        List<String> records = curator.getChildren().forPath("/records");
        assertEquals(1, records.size(), "exactly one completion record: " + records);
        assertEquals(Optional.empty(), queue.claim(Duration.ofMillis(200)).map(TaskClaim::id));
        assertTrue(queue.deadLetters().isEmpty());
    }

    /**
     * Removes (and books the output of) consumers that exited on their own. One that never got as
     * far as {@code READY} (e.g. it could not connect in time on a loaded machine) held nothing and
     * is replaced; one that was working must not die: that fails the test, with its log.
     *
     * @return how many were removed
     */
    private static int reapExited(Map<Integer, ChildJvm> children, Booking book) {
        List<Integer> gone = children.entrySet().stream().filter(c -> !c.getValue().isAlive()).map(Map.Entry::getKey).toList();
        for (int child : gone) {
            ChildJvm jvm = children.remove(child);
            book.drain(child, jvm);
            String why = "consumer " + child + " (" + jvm + ") exited on its own" + jvm.stderrTail();
            assertTrue(!book.ready.contains(child), why);
            System.out.println(why + "\nIt never started working; starting another.");
            jvm.close();
        }
        return gone.size();
    }

    /** This test's client, the {@code /records} directory, and the queue "jobs" on that client. */
    private record Fixture(CuratorFramework curator, TaskQueue<Job> queue) {
    }

    private static Fixture fixture() throws Exception {
        CoordClient client = ZK.client();
        client.curator().create().creatingParentsIfNeeded().forPath("/records");
        return new Fixture(client.curator(), ZK.queue(client, "jobs", Job.class, QueueOptions.defaults()));
    }

    /**
     * What the consumers printed, booked per child: sessions, executions ({@code START task token}),
     * completions reported, and every claim known to be interrupted, with why.
     */
    private static final class Booking {
        private static final Set<String> INDETERMINATE = Set.of(ConnectionLostException.class.getSimpleName(),
                SessionExpiredException.class.getSimpleName(), CoordTimeoutException.class.getSimpleName());

        final Map<Integer, String> lastLine = new HashMap<>();
        final Map<Integer, SessionTwin.Credentials> sessions = new HashMap<>();
        final Map<String, List<Long>> starts = new TreeMap<>();
        final Map<String, Integer> dones = new TreeMap<>();
        final Map<SessionTwin.Claim, String> interrupted = new LinkedHashMap<>();
        final Set<Integer> ready = new HashSet<>();
        final Map<Integer, Integer> sessionCount = new HashMap<>();
        final Map<SessionTwin.Claim, Integer> lostAt = new HashMap<>();
        final Map<Integer, List<Long>> faultEnds = new HashMap<>();
        /** Completions that failed for a reason that is no fault (they explain no repeat). */
        final List<String> failed = new ArrayList<>();

        void line(int child, String line) {
            String[] f = line.split(" ");
            lastLine.put(child, f[0]);
            switch (f[0]) {
                case "SESSION" -> {
                    sessions.put(child, credentials(line));
                    sessionCount.merge(child, 1, Integer::sum);
                }
                case "START" -> starts.computeIfAbsent(f[1], t -> new ArrayList<>()).add(Long.parseLong(f[2]));
                case "READY" -> ready.add(child);
                case "DONE" -> dones.merge(f[1], 1, Integer::sum);
                // the server refused the completion: the claim was gone (see explains)
                case "LOST" -> {
                    interrupted(new SessionTwin.Claim(f[1], Long.parseLong(f[2])), "LOST at child " + child);
                    lostAt.put(new SessionTwin.Claim(f[1], Long.parseLong(f[2])), child);
                }
                case "ABORT" -> {
                    // interrupted at shutdown (no cause), or a completion whose outcome is unknown
                    // (a connection or session lost under load); any other failure explains nothing
                    if (f.length < 4 || INDETERMINATE.contains(f[3])) {
                        interrupted(new SessionTwin.Claim(f[1], Long.parseLong(f[2])), "ABORT at child " + child);
                    } else {
                        failed.add(line);
                    }
                }
                default -> {
                }
            }
        }

        /**
         * Whether {@code claim} was really interrupted: a fault held it, its completion was
         * indeterminate, or it was refused (LOST) on a consumer whose session did end (it got a new
         * one). A claim node gone while its session lives would be a product bug, not a fault.
         */
        boolean explains(SessionTwin.Claim claim) {
            if (!interrupted.containsKey(claim)) {
                return false;
            }
            Integer child = lostAt.get(claim);
            if (child == null || !interrupted.get(claim).startsWith("LOST")) {
                return true;
            }
            // A child's sessions come one after another: a claim older than a fault that ended one
            // of its sessions was on a session that had ended by then. A newer one needs a session
            // end no fault made (the child then has more sessions than faults ended).
            List<Long> ends = faultEnds.getOrDefault(child, List.of());
            return ends.stream().anyMatch(z -> z > claim.token()) || sessionCount.getOrDefault(child, 0) > 1 + ends.size();
        }

        /** A fault ended {@code child}'s session; every claim it held has a token below {@code zxidAfter}. */
        void sessionEnded(int child, long zxidAfter) {
            faultEnds.computeIfAbsent(child, c -> new ArrayList<>()).add(zxidAfter);
        }

        void interrupted(SessionTwin.Claim claim, String why) {
            interrupted.putIfAbsent(claim, why);
        }

        /** Books a dead child's output up to its end. */
        void drain(int child, ChildJvm jvm) {
            Duration quiet = Awaits.scaled(Duration.ofSeconds(10)); // an ended output answers at once
            for (Optional<String> l = jvm.readLine(quiet); l.isPresent(); l = jvm.readLine(quiet)) {
                line(child, l.get());
            }
        }

        /** Books a stopping child's output up to its {@code BYE}, printed after its worker closed. */
        void drainUntilBye(int child, ChildJvm jvm) {
            Duration budget = Awaits.scaled(Duration.ofSeconds(30));
            long deadline = System.nanoTime() + budget.toNanos();
            while (System.nanoTime() < deadline) {
                Optional<String> l = jvm.readLine(Duration.ofMillis(100));
                if (l.isPresent() && l.get().equals("BYE")) {
                    return;
                }
                l.ifPresent(s -> line(child, s));
            }
            throw new AssertionError("child " + jvm + " did not stop within " + budget + jvm.stderrTail());
        }

        /** How many interrupted claims each cause explains, e.g. {@code kill=5 expiry=3 LOST=1}, and which no fault held. */
        String causes() {
            Map<String, Integer> by = new TreeMap<>();
            interrupted.values().forEach(w -> by.merge(w.split(" ")[0], 1, Integer::sum));
            List<String> others = interrupted.entrySet().stream().filter(e -> !e.getValue().contains(" of child "))
                    .map(e -> e.getKey().task() + "@" + e.getKey().token() + " " + e.getValue()).toList();
            return by + (others.isEmpty() ? "" : ", outside the faults: " + others);
        }

        static SessionTwin.Credentials credentials(String sessionLine) {
            String[] f = sessionLine.split(" ");
            return new SessionTwin.Credentials(Long.parseUnsignedLong(f[1], 16), Base64.getDecoder().decode(f[2]),
                    Integer.parseInt(f[3]));
        }
    }

    /** A consumer in a child JVM (see {@link ConsumerMain}), closed after the test. */
    private static ChildJvm consumer(String workMs) {
        return consumer(workMs, Duration.ofSeconds(2));
    }

    private static ChildJvm consumer(String workMs, Duration session) {
        return ZK.track(ChildJvm.start(ConsumerMain.class.getName(), ZK.ensemble().connectString(), ZK.namespace(), "jobs", workMs,
                Long.toString(session.toMillis())));
    }

    /** The next line of {@code kind} from {@code child}, within {@code budget} (scaled). */
    private static String awaitLine(ChildJvm child, String kind, Duration budget) {
        budget = Awaits.scaled(budget);
        long deadline = System.nanoTime() + budget.toNanos();
        while (System.nanoTime() < deadline) {
            Optional<String> line = child.readLine(Duration.ofMillis(100));
            if (line.isPresent() && line.get().startsWith(kind + " ")) {
                return line.get();
            }
        }
        throw new AssertionError("no " + kind + " line from " + child + " within " + budget + child.stderrTail());
    }

    /** The first outcome line (DONE, LOST or ABORT) for {@code task} from {@code child}, within {@code budget} (scaled). */
    private static String awaitOutcome(ChildJvm child, String task, Duration budget) {
        budget = Awaits.scaled(budget);
        long deadline = System.nanoTime() + budget.toNanos();
        List<String> seen = new ArrayList<>();
        while (System.nanoTime() < deadline) {
            Optional<String> line = child.readLine(Duration.ofMillis(100));
            if (line.isEmpty()) {
                continue;
            }
            seen.add(line.get());
            if (line.get().matches("(DONE|LOST|ABORT) " + task + " .*")) {
                return line.get();
            }
        }
        throw new AssertionError("no outcome line for " + task + " from " + child + " within " + budget + "; its lines: " + seen
                + child.stderrTail());
    }

    private static String claimsPath() {
        return "/" + ZK.namespace() + "/queues/jobs/claims";
    }

    private static List<String> records(CuratorFramework curator, String task) {
        try {
            return curator.getChildren().forPath("/records").stream().filter(r -> r.startsWith(task + "-")).toList();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static int remaining(CuratorFramework curator) {
        try {
            return curator.checkExists().forPath("/queues/jobs/tasks").getNumChildren();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
