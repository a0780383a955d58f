package io.coord.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.CoordClient;
import io.coord.test.Awaits;
import io.coord.test.ChildJvm;
import io.coord.test.ZooKeeperExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 17: a partitioned queue at depth. 200 000 tasks across 8 partitions (25 000 each, the
 * highest per-partition cap), 4 consumers in child JVMs (4 worker threads each), 2 of them
 * kill -9'd mid-run. 0 lost, 0 duplicate completions (each completion writes a record in its own
 * transaction, so a second accepted completion of a task shows as a second record), and the order
 * statistics of the claims (by claim zxid) against the enqueue order, within the bound the package
 * documentation states. Long (minutes): tagged {@code long}, so CI runs it in pass 1 only; the
 * task count can be lowered with {@code -Dcoord.test.partitionedTasks=N} for a quick local run.
 */
@Tag("long")
class PartitionedKillIT {
    @RegisterExtension
    @Order(1)
    static final ZooKeeperExtension ZOOKEEPER = ZooKeeperExtension.single();
    @RegisterExtension
    @Order(2)
    static final QueueServer ZK = QueueServer.on(ZOOKEEPER);

    private static final int TASKS = Integer.getInteger("coord.test.partitionedTasks", 200_000);
    private static final int PARTITIONS = 8;
    private static final int CONSUMERS = 4;
    private static final int THREADS = 4;
    private static final int BUCKETS = 64;
    private static final int BATCH = 200;
    /**
     * The documented bound (package-info, "Order across partitions"), for this shape (8 partitions,
     * batches of 200, 16 claiming threads): 99 % of first claims are within this many places of their
     * enqueue position, and at most {@value #MAX_INVERTED} of all pairs of tasks are claimed in the
     * opposite order. Measured on a 2-core machine at load average 30 to 50: 200 000 tasks, p99 1 332,
     * mean 83, max 5 487, 0.046 % of pairs (20 000 tasks: p99 1 330, 0.43 % of pairs); 8 minutes.
     */
    static final int MAX_P99_DISPLACEMENT = 2_000;
    static final double MAX_INVERTED = 0.01;

    @Test
    void twoHundredThousandTasksOverEightPartitionsWithTwoConsumersKilledNoneLostNoneTwiceInBoundedOrder() throws Exception {
        CoordClient client = ZK.client();
        CuratorFramework curator = client.curator();
        for (int b = 0; b < BUCKETS; b++) {
            curator.create().creatingParentsIfNeeded().forPath("/records/b" + b);
        }
        TaskQueue<Job> queue = ZK.queue(client, "jobs", Job.class, QueueOptions.builder().partitions(PARTITIONS)
                .depthCap(QueueOptions.MAX_DEPTH_CAP).build());
        long enqueueStart = System.nanoTime();
        List<TaskId> ids = new ArrayList<>(TASKS);
        List<Job> batch = new ArrayList<>(BATCH);
        for (int i = 0; i < TASKS; i++) {
            batch.add(new Job("t", i));
            if (batch.size() == BATCH || i == TASKS - 1) {
                ids.addAll(queue.enqueueAll(batch)); // one partition per batch, round-robin: n order is czxid order
                batch.clear();
            }
        }
        long enqueueMs = (System.nanoTime() - enqueueStart) / 1_000_000;
        assertEquals(TASKS, ids.size());

        Map<Integer, ChildJvm> children = new HashMap<>();
        Map<String, List<long[]>> starts = new HashMap<>(TASKS * 2); // task -> (token, n) per execution
        int[] dones = {0};
        long runStart = System.nanoTime();
        int kills = 0;
        try {
            for (int i = 0; i < CONSUMERS; i++) {
                children.put(i, ZK.track(ChildJvm.start(ConsumerMain.class.getName(), ZK.ensemble().connectString(),
                        ZK.namespace(), "jobs", "0", "4000", Integer.toString(PARTITIONS), Integer.toString(THREADS),
                        Integer.toString(BUCKETS))));
            }
            Duration stall = Awaits.scaled(Duration.ofSeconds(60));
            long deadline = System.nanoTime() + Awaits.scaled(Duration.ofMinutes(15)).toNanos();
            long lastProgress = System.nanoTime();
            int doneBefore = 0;
            while (true) {
                boolean read = false;
                for (ChildJvm child : children.values()) {
                    for (int n = 0; n < 1000; n++) {
                        Optional<String> line = child.readLine(Duration.ZERO);
                        if (line.isEmpty()) {
                            break;
                        }
                        read = true;
                        book(line.get(), starts, dones);
                    }
                }
                if (dones[0] > doneBefore) {
                    doneBefore = dones[0];
                    lastProgress = System.nanoTime();
                }
                if (kills < 2 && dones[0] >= TASKS * (kills + 1) / 3) {
                    ChildJvm victim = children.get(kills);
                    victim.kill9();
                    kills++;
                    System.out.printf("partitioned run: kill -9 of consumer %d at %d completions%n", kills - 1, dones[0]);
                }
                if (!read) {
                    if (remaining(curator) == 0) {
                        break;
                    }
                    assertTrue(System.nanoTime() - lastProgress < stall.toNanos() && System.nanoTime() < deadline,
                            "no completion within " + stall + " or not done in time: " + remaining(curator) + " tasks left, "
                                    + dones[0] + " reported done");
                    Thread.sleep(20);
                }
            }
            long runMs = (System.nanoTime() - runStart) / 1_000_000;
            for (int i = kills; i < CONSUMERS; i++) {
                ChildJvm child = children.get(i);
                child.send("STOP");
                long byeBy = System.nanoTime() + Awaits.scaled(Duration.ofSeconds(60)).toNanos();
                while (true) {
                    String l = child.readLine(Duration.ofMillis(200)).orElse("");
                    if (l.equals("BYE")) {
                        break;
                    }
                    book(l, starts, dones);
                    assertTrue(System.nanoTime() < byeBy, "consumer " + i + " did not stop" + child.stderrTail());
                }
            }
            // Every acknowledged task: completed exactly once (one record), none left, none dead.
            Map<String, Integer> records = new HashMap<>(TASKS * 2);
            int total = 0;
            for (int b = 0; b < BUCKETS; b++) {
                for (String r : curator.getChildren().forPath("/records/b" + b)) {
                    records.merge(r.substring(0, r.lastIndexOf('-')), 1, Integer::sum);
                    total++;
                }
            }
            int lost = 0;
            int twice = 0;
            for (TaskId id : ids) {
                int n = records.getOrDefault(id.name(), 0);
                lost += n == 0 ? 1 : 0;
                twice += n > 1 ? 1 : 0;
            }
            assertEquals(0, lost, "lost tasks");
            assertEquals(0, twice, "tasks completed twice");
            assertEquals(TASKS, total, "records");
            QueueStats stats = queue.stats();
            assertEquals(0, stats.depth() + stats.dead(), stats.toString());

            Stats order = order(starts);
            System.out.printf("partitioned run: %d tasks, %d partitions, %d consumers x %d threads, %d kill -9;"
                            + " enqueue %d ms (%d/s, batches of %d), claim+complete %d ms (%d/s); %d executions (%d redelivered);"
                            + " order of first claims: %d inversions (%.6f of all pairs), max displacement %d, p99 %d, mean %.1f"
                            + " (bounds: p99 %d, %.2f of pairs)%n",
                    TASKS, PARTITIONS, CONSUMERS, THREADS, kills, enqueueMs, TASKS * 1000L / Math.max(1, enqueueMs), BATCH,
                    runMs, TASKS * 1000L / Math.max(1, runMs), order.executions, order.redelivered, order.inversions,
                    order.inversions / (TASKS * (TASKS - 1L) / 2.0), order.maxDisplacement, order.p99, order.meanDisplacement,
                    MAX_P99_DISPLACEMENT, MAX_INVERTED);
            assertEquals(2, kills);
            assertTrue(order.p99 <= MAX_P99_DISPLACEMENT, "p99 displacement " + order.p99 + " over the bound " + MAX_P99_DISPLACEMENT);
            assertTrue(order.inversions <= MAX_INVERTED * TASKS * (TASKS - 1L) / 2.0, "inversions " + order.inversions);
        } finally {
            children.values().forEach(ChildJvm::close);
        }
    }

    private static void book(String line, Map<String, List<long[]>> starts, int[] dones) {
        String[] f = line.split(" ");
        if (f[0].equals("START") && f.length >= 4) {
            starts.computeIfAbsent(f[1], t -> new ArrayList<>(1)).add(new long[] {Long.parseLong(f[2]), Long.parseLong(f[3])});
        } else if (f[0].equals("DONE")) {
            dones[0]++;
        }
    }

    private static long remaining(CuratorFramework curator) throws Exception {
        long n = 0;
        for (int p = 0; p < PARTITIONS; p++) {
            Stat s = curator.checkExists().forPath("/queues/jobs/p" + p + "/tasks");
            n += s == null ? 0 : s.getNumChildren();
        }
        return n;
    }

    /** Order statistics of first claims (by claim token: the claim's zxid, ZooKeeper's global order) against enqueue numbers. */
    private record Stats(int executions, int redelivered, long inversions, int maxDisplacement, int p99, double meanDisplacement) {
    }

    static Stats order(Map<String, List<long[]>> starts) {
        List<long[]> first = new ArrayList<>(starts.size());
        int executions = 0;
        int redelivered = 0;
        for (List<long[]> runs : starts.values()) {
            executions += runs.size();
            redelivered += runs.size() > 1 ? 1 : 0;
            first.add(runs.stream().min((a, b) -> Long.compare(a[0], b[0])).orElseThrow());
        }
        first.sort((a, b) -> Long.compare(a[0], b[0]));
        int[] byClaim = new int[first.size()];
        for (int i = 0; i < byClaim.length; i++) {
            byClaim[i] = (int) first.get(i)[1];
        }
        int[] enqueueRank = byClaim.clone();
        Arrays.sort(enqueueRank);
        Map<Integer, Integer> rankOf = new HashMap<>(byClaim.length * 2);
        for (int i = 0; i < enqueueRank.length; i++) {
            rankOf.put(enqueueRank[i], i);
        }
        int[] displacement = new int[byClaim.length];
        long sum = 0;
        for (int i = 0; i < byClaim.length; i++) {
            displacement[i] = Math.abs(i - rankOf.get(byClaim[i]));
            sum += displacement[i];
        }
        int[] sorted = displacement.clone();
        Arrays.sort(sorted);
        long inversions = inversions(byClaim.clone(), new int[byClaim.length], 0, byClaim.length);
        return new Stats(executions, redelivered, inversions, sorted.length == 0 ? 0 : sorted[sorted.length - 1],
                sorted.length == 0 ? 0 : sorted[(int) Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.99) - 1)],
                sorted.length == 0 ? 0 : (double) sum / sorted.length);
    }

    /** Pairs out of order in {@code a[from, to)}, by merge sort. */
    private static long inversions(int[] a, int[] tmp, int from, int to) {
        if (to - from < 2) {
            return 0;
        }
        int mid = (from + to) >>> 1;
        long count = inversions(a, tmp, from, mid) + inversions(a, tmp, mid, to);
        int i = from;
        int j = mid;
        int k = from;
        while (i < mid && j < to) {
            if (a[i] <= a[j]) {
                tmp[k++] = a[i++];
            } else {
                tmp[k++] = a[j++];
                count += mid - i;
            }
        }
        while (i < mid) {
            tmp[k++] = a[i++];
        }
        while (j < to) {
            tmp[k++] = a[j++];
        }
        System.arraycopy(tmp, from, a, from, to - from);
        return count;
    }
}
