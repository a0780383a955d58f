package io.coord.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.coord.Codec;
import io.coord.CoordClient;
import io.coord.CoordPath;
import io.coord.CoordSettings;
import io.coord.BarrierBrokenException;
import io.coord.barrier.BarrierOptions;
import io.coord.barrier.DoubleBarrier;
import io.coord.config.ConfigKey;
import io.coord.config.ConfigOptions;
import io.coord.config.ConfigStore;
import io.coord.config.LiveConfig;
import io.coord.election.Election;
import io.coord.election.ElectionOptions;
import io.coord.lock.LockLease;
import io.coord.lock.LockOptions;
import io.coord.lock.Locks;
import io.coord.membership.Group;
import io.coord.queue.QueueOptions;
import io.coord.queue.TaskClaim;
import io.coord.queue.TaskQueue;
import io.coord.queue.TaskSpec;
import io.coord.test.Awaits;
import io.coord.test.EmbeddedEnsemble;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.data.Stat;

/**
 * A live namespace for the web console's tests, built with the real recipes on a real server: a
 * lock held by billing-7 with billing-8 waiting, a queue with a claim by worker-a, a delayed task
 * and a dead letter, half a queue (only its tasks/ directory), an election led by node-a with
 * node-b next, a group with two members, a
 * broken barrier, a config key at v1 read by svc-1, and a key with a
 * 25 % canary in flight. Each actor has its own session, so that
 * a test can release the lock or kill the leader.
 */
final class ConsoleFixture implements AutoCloseable {
    static final String NAMESPACE = "ui";
    static final CoordPath LOCK = Locks.path("orders", "42");

    private final EmbeddedEnsemble server = EmbeddedEnsemble.start(EmbeddedEnsemble.Options.single());
    private final List<AutoCloseable> open = new ArrayList<>();
    private final ExecutorService pool = Executors.newSingleThreadExecutor();
    private CoordClient admin;
    private CoordClient leaderSession;
    private LockLease held;
    private Future<LockLease> waiting;

    /** Builds the namespace; on a failure, stops whatever it had started before throwing. */
    ConsoleFixture() throws Exception {
        try {
            build();
        } catch (Exception | Error e) {
            close();
            throw e;
        }
    }

    private void build() throws Exception {
        admin = client();
        CoordClient holder = client();
        CoordClient waiter = client();
        leaderSession = client();
        CoordClient follower = client();

        held = Locks.mutex(holder, LOCK, LockOptions.builder().ownerName("billing-7").build()).acquire(Duration.ofSeconds(10));
        open.add(held::close);
        waiting = pool.submit(() -> Locks.mutex(waiter, LOCK, LockOptions.builder().ownerName("billing-8").build())
                .acquire(Duration.ofMinutes(5)));
        Awaits.until("billing-8 queued", Duration.ofSeconds(10), () -> inspectWaiters() == 1);

        TaskQueue<JsonNode> jobs = TaskQueue.open(admin, "jobs", Codec.json(JsonNode.class),
                QueueOptions.builder().consumerName("worker-a").build());
        open.add(jobs::close);
        jobs.enqueue(Codec.mapper().readTree("{\"image\":\"missing.png\"}"), TaskSpec.defaults().maxRetries(0));
        jobs.claim(Duration.ofSeconds(5)).orElseThrow().fail("no such image");
        jobs.enqueue(Codec.mapper().readTree("{\"image\":\"a.png\"}"));
        jobs.enqueue(Codec.mapper().readTree("{\"image\":\"b.png\"}"), Instant.now().plus(Duration.ofHours(1)));
        TaskClaim<JsonNode> claim = jobs.claim(Duration.ofSeconds(5)).orElseThrow();
        open.add(claim::close);
        // half a queue (as a cleanup script may leave it): opening it would create its other directories
        admin.curator().create().creatingParentsIfNeeded().forPath("/queues/partial/tasks");
        // a partitioned queue: the console opens it with the count it recorded (opening with 1 is refused)
        TaskQueue<JsonNode> sharded = TaskQueue.open(admin, "sharded", Codec.json(JsonNode.class),
                QueueOptions.builder().partitions(3).build());
        open.add(sharded::close);
        sharded.enqueue(Codec.mapper().readTree("{\"image\":\"c.png\"}"));

        Election lead = Election.open(leaderSession, "scheduler", ElectionOptions.builder().participantId("node-a").build());
        open.add(lead::close);
        lead.campaign(Duration.ofSeconds(10));
        Election next = Election.open(follower, "scheduler", ElectionOptions.builder().participantId("node-b").build());
        open.add(next::close);
        next.campaignAsync();

        Group<Map> group = Group.open(admin, "workers", Map.class);
        open.add(group::close);
        group.join("worker-a", Map.of("zone", "eu-1"));
        Group<Map> other = Group.open(follower, "workers", Map.class);
        open.add(other::close);
        other.join("worker-b", Map.of("zone", "eu-2"));

        DoubleBarrier lonely = DoubleBarrier.create(admin, "nightly", 3, BarrierOptions.builder().memberId("loader-1").build());
        try {
            lonely.enter(Duration.ofMillis(300));
            throw new IllegalStateException("a barrier of 3 with one member did not break");
        } catch (BarrierBrokenException expected) {
            // the state the console must show
        }

        ConfigKey<JsonNode> key = ConfigKey.json("billing", "batch.size");
        ConfigStore store = ConfigStore.open(admin, ConfigOptions.defaults());
        store.put(key, Codec.mapper().readTree("50"));
        store.put(key, Codec.mapper().readTree("64"));
        LiveConfig<JsonNode> reader = LiveConfig.watch(admin, key, ConfigOptions.builder().instanceId("svc-1").build());
        open.add(reader::close);
        reader.awaitInitialized(Duration.ofSeconds(10));
        Awaits.until("svc-1 reported v1", Duration.ofSeconds(10), () -> reports(store, key));
        ConfigKey<JsonNode> flags = ConfigKey.json("billing", "feature.flags");
        store.put(flags, Codec.mapper().readTree("{\"fastPath\":false}"));
        store.canary(flags, Codec.mapper().readTree("{\"fastPath\":true}"), 25);
    }

    private static boolean reports(ConfigStore store, ConfigKey<JsonNode> key) {
        try {
            return store.who(key).stream().anyMatch(r -> r.version() == 1);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private int inspectWaiters() {
        try {
            return Locks.inspect(admin, LOCK).waiters().size();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    /** A new client of the fixture's namespace (closed with the fixture). */
    CoordClient client() throws InterruptedException {
        CoordClient c = CoordClient.connect(CoordSettings.builder().connectString(server.connectString()).namespace(NAMESPACE)
                .sessionTimeout(Duration.ofSeconds(4)).connectionTimeout(Awaits.scaled(Duration.ofSeconds(15))).build());
        open.add(c);
        return c;
    }

    String connectString() {
        return server.connectString();
    }

    /** billing-7 lets go; billing-8, waiting, takes the lock. */
    void releaseLock() throws Exception {
        held.close();
        open.add(waiting.get(Awaits.scaled(Duration.ofSeconds(10)).toMillis(), TimeUnit.MILLISECONDS));
    }

    /** node-a's process dies (its session closes); node-b takes over. */
    void killLeader() {
        leaderSession.close();
    }

    /**
     * Every node of the namespace with the zxids a write changes: mzxid (data set), pzxid and
     * cversion (a child created or deleted), version and aversion. A read changes none of them.
     */
    Map<String, String> nodes() throws Exception {
        Map<String, String> nodes = new TreeMap<>();
        walk("/", nodes);
        return nodes;
    }

    private void walk(String path, Map<String, String> into) throws Exception {
        Stat s = admin.curator().checkExists().forPath(path);
        if (s == null) {
            return;
        }
        into.put(path, "mzxid=" + s.getMzxid() + " pzxid=" + s.getPzxid() + " cversion=" + s.getCversion() + " version=" + s.getVersion()
                + " aversion=" + s.getAversion());
        for (String child : admin.curator().getChildren().forPath(path)) {
            walk(path.equals("/") ? "/" + child : path + "/" + child, into);
        }
    }

    @Override
    public void close() throws Exception {
        pool.shutdownNow();
        pool.awaitTermination(10, TimeUnit.SECONDS);
        for (int i = open.size() - 1; i >= 0; i--) {
            try {
                open.get(i).close();
            } catch (Exception e) {
                // closing the rest matters more; the server goes next
            }
        }
        server.close();
    }
}
