package io.coord.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.CoordClient;
import io.coord.test.ChildJvm;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
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

    private record Session(long id, byte[] password, int timeoutMs) {
    }

    @Test
    void everyTaskIsCompletedExactlyOnceWhileConsumersAreKilledAndExpiredMidTask() throws Exception {
        CoordClient client = ZK.client();
        CuratorFramework curator = client.curator();
        curator.create().creatingParentsIfNeeded().forPath("/records");
        TaskQueue<Job> queue = ZK.queue(client, "jobs", Job.class, QueueOptions.defaults());
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
        Map<Integer, String> lastLine = new HashMap<>();
        Map<Integer, Session> sessions = new HashMap<>();
        Map<String, Integer> starts = new TreeMap<>();
        Map<String, Integer> dones = new TreeMap<>();
        Map<Integer, String> current = new HashMap<>();
        List<String> interrupted = new ArrayList<>();
        Random random = new Random(42);
        int nextId = 0;
        int kills = 0;
        int expiries = 0;
        try {
            for (int i = 0; i < CONSUMERS; i++) {
                children.put(nextId++, consumer("12"));
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(150);
            int applied = 0;
            long lastCheck = 0;
            while (true) {
                assertTrue(System.nanoTime() < deadline, "not done within 150 s: " + remaining(curator) + " tasks left, "
                        + dones.size() + " reported done, faults applied " + applied);
                boolean read = false;
                for (Map.Entry<Integer, ChildJvm> c : children.entrySet()) {
                    Optional<String> l = c.getValue().readLine(Duration.ZERO);
                    if (l.isPresent()) {
                        record(c.getKey(), l.get(), lastLine, sessions, starts, dones, current, interrupted);
                        read = true;
                    }
                }
                if (!read) {
                    // nothing pending anywhere: wait a little on one child (bounded), then look again
                    Map.Entry<Integer, ChildJvm> first = children.entrySet().iterator().next();
                    first.getValue().readLine(Duration.ofMillis(5)).ifPresent(l -> record(first.getKey(), l, lastLine, sessions,
                            starts, dones, current, interrupted));
                }
                // Next fault once enough progress was made since the last, on a consumer that is mid-task.
                if (applied < FAULTS.length() && dones.size() >= (applied + 1) * 150) {
                    List<Integer> busy = children.keySet().stream()
                            .filter(c -> "START".equals(lastLine.get(c)) && children.get(c).isAlive()).toList();
                    if (!busy.isEmpty()) {
                        int victim = busy.get(random.nextInt(busy.size()));
                        if (FAULTS.charAt(applied) == 'K') {
                            ChildJvm dead = children.remove(victim);
                            dead.kill9();
                            // What it printed before it died tells which task it was on.
                            for (Optional<String> l = dead.readLine(Duration.ofMillis(200)); l.isPresent();
                                    l = dead.readLine(Duration.ofMillis(200))) {
                                record(victim, l.get(), lastLine, sessions, starts, dones, current, interrupted);
                            }
                            interrupted.add(current.get(victim));
                            children.put(nextId++, consumer("12"));
                            kills++;
                        } else {
                            Session s = sessions.get(victim);
                            QueueServer.expireSession(ZK.ensemble().connectString(), s.id(), s.password(), s.timeoutMs());
                            // The expiry takes the victim's claim: its task runs again elsewhere. Its
                            // LOST line may come only after the queue is empty, so count it here.
                            interrupted.add(current.get(victim));
                            expiries++;
                        }
                        lastLine.remove(victim);
                        applied++;
                    }
                }
                if (System.nanoTime() - lastCheck > 200_000_000L) {
                    lastCheck = System.nanoTime();
                    if (remaining(curator) == 0) {
                        break;
                    }
                }
            }
            assertEquals(FAULTS.length(), applied, "every scheduled fault was applied");
        } finally {
            children.values().forEach(ChildJvm::close);
        }

        // Exactly once: one record per task, none missing, none extra.
        Map<String, Integer> records = new TreeMap<>();
        for (String r : curator.getChildren().forPath("/records")) {
            records.merge(r.substring(0, r.lastIndexOf('-')), 1, Integer::sum);
        }
        List<String> duplicated = records.entrySet().stream().filter(e -> e.getValue() > 1).map(Map.Entry::getKey).toList();
        assertTrue(duplicated.isEmpty(), "tasks completed more than once: " + duplicated);
        List<String> missing = ids.stream().map(TaskId::name).filter(n -> !records.containsKey(n)).toList();
        assertTrue(missing.isEmpty(), "tasks never completed: " + missing);
        assertEquals(TASKS, records.size());
        assertTrue(dones.values().stream().allMatch(n -> n == 1), "a task reported DONE twice");
        assertTrue(queue.deadLetters().isEmpty(), "nothing was dead-lettered: " + queue.deadLetters());
        assertEquals(0, queue.stats().depth());
        int extra = starts.values().stream().mapToInt(n -> n - 1).sum();
        long aborted = interrupted.stream().filter(t -> t.endsWith(" (aborted)")).count();
        assertTrue(extra <= kills + expiries + aborted, "extra executions " + extra + " exceed the " + (kills + expiries)
                + " faults and " + aborted + " indeterminate completions");
        List<String> unexplained = starts.entrySet().stream().filter(e -> e.getValue() > 1 && !interrupted.contains(e.getKey())
                        && !interrupted.contains(e.getKey() + " (aborted)"))
                .map(Map.Entry::getKey).toList();
        assertTrue(unexplained.isEmpty(), "extra executions of tasks no fault interrupted: " + unexplained + "; interrupted " + interrupted);
        System.out.printf("queue fault run: %d tasks, %d kills, %d expiries, %d of the interrupted tasks run again"
                + " (extra executions), 0 duplicate completions, 0 lost, 0 dead-lettered%n", TASKS, kills, expiries, extra);
    }

    @Test
    void aConsumerPausedPastItsSessionCannotCompleteAndTheReclaimerCompletesOnce() throws Exception {
        CoordClient client = ZK.client();
        CuratorFramework curator = client.curator();
        curator.create().creatingParentsIfNeeded().forPath("/records");
        TaskQueue<Job> queue = ZK.queue(client, "jobs", Job.class, QueueOptions.defaults());
        TaskId id = queue.enqueue(new Job("slow", 0));
        ChildJvm stale = consumer("4000");
        String started = awaitLine(stale, "START", Duration.ofSeconds(30));
        assertTrue(started.contains(id.name()), started);
        long staleToken = Long.parseLong(started.split(" ")[2]);
        stale.pause();
        try {
            // Its session (2 s) expires on the server while it is stopped; its claim node goes with it.
            TaskClaim<Job> fresh = queue.claim(Duration.ofSeconds(15)).orElseThrow(
                    () -> new AssertionError("the paused consumer's task never came back"));
            assertEquals(id, fresh.id());
            assertTrue(fresh.token().value() > staleToken, "the new claim's token is higher");
            fresh.completeWith(List.of(curator.transactionOp().create().withMode(CreateMode.PERSISTENT_SEQUENTIAL)
                    .forPath("/records/" + id.name() + "-", Long.toString(fresh.token().value()).getBytes(StandardCharsets.UTF_8))));
        } finally {
            stale.resume();
        }
        String outcome = awaitLine(stale, "LOST", Duration.ofSeconds(30));
        assertTrue(outcome.contains(id.name()), "the stale consumer's completion was refused: " + outcome);
        List<String> records = curator.getChildren().forPath("/records");
        assertEquals(1, records.size(), "exactly one completion record: " + records);
        assertEquals(Optional.empty(), queue.claim(Duration.ofMillis(200)).map(TaskClaim::id));
        assertTrue(queue.deadLetters().isEmpty());
    }

    /** Books one line a consumer printed; a LOST line names a task whose claim an expiry took away. */
    private static void record(int child, String line, Map<Integer, String> lastLine, Map<Integer, Session> sessions,
                               Map<String, Integer> starts, Map<String, Integer> dones, Map<Integer, String> current,
                               List<String> interrupted) {
        String[] f = line.split(" ");
        lastLine.put(child, f[0]);
        switch (f[0]) {
            case "SESSION" -> sessions.put(child, new Session(Long.parseUnsignedLong(f[1], 16),
                    Base64.getDecoder().decode(f[2]), Integer.parseInt(f[3])));
            case "START" -> {
                starts.merge(f[1], 1, Integer::sum);
                current.put(child, f[1]);
            }
            case "DONE" -> dones.merge(f[1], 1, Integer::sum);
            case "LOST" -> interrupted.add(f[1]);
            case "ABORT" -> interrupted.add(f[1] + " (aborted)"); // a completion that failed indeterminately (load)
            default -> {
            }
        }
    }

    /** A consumer in a child JVM (see {@link ConsumerMain}), closed after the test. */
    private static ChildJvm consumer(String workMs) {
        return ZK.track(ChildJvm.start(ConsumerMain.class.getName(), ZK.ensemble().connectString(), ZK.namespace(), "jobs", workMs));
    }

    private static String awaitLine(ChildJvm child, String kind, Duration budget) {
        long deadline = System.nanoTime() + budget.toNanos();
        while (System.nanoTime() < deadline) {
            Optional<String> line = child.readLine(Duration.ofMillis(100));
            if (line.isPresent() && line.get().startsWith(kind + " ")) {
                return line.get();
            }
        }
        throw new AssertionError("no " + kind + " line from " + child + " within " + budget + child.stderrTail());
    }

    private static int remaining(CuratorFramework curator) {
        try {
            return curator.checkExists().forPath("/queues/jobs/tasks").getNumChildren();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
