package io.coord.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.coord.AclEntry;
import io.coord.AclPolicy;
import io.coord.BarrierBrokenException;
import io.coord.Codec;
import io.coord.CoordClient;
import io.coord.CoordPath;
import io.coord.CoordSettings;
import io.coord.barrier.BarrierOptions;
import io.coord.barrier.DoubleBarrier;
import io.coord.config.ConfigKey;
import io.coord.config.ConfigOptions;
import io.coord.config.ConfigStore;
import io.coord.election.Election;
import io.coord.election.ElectionOptions;
import io.coord.election.Leadership;
import io.coord.lock.DistributedLock;
import io.coord.lock.LockLease;
import io.coord.lock.LockOptions;
import io.coord.lock.Locks;
import io.coord.membership.Group;
import io.coord.queue.QueueOptions;
import io.coord.queue.TaskQueue;
import io.coord.queue.TaskSpec;
import io.coord.test.Awaits;
import io.coord.test.ClientProxy;
import io.coord.test.EmbeddedEnsemble;
import io.coord.test.Faults;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.ZooDefs;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code coord doctor} against a real server: each check is shown a bad state built on it, and
 * must report it with its severity, path and text and the exit code that goes with it. Each test
 * works in a namespace of its own; every namespace is also checked by the other checks, which must
 * stay quiet there.
 */
class DoctorCommandTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final AtomicInteger NS = new AtomicInteger();
    private static EmbeddedEnsemble server;

    @BeforeAll
    static void startServer() {
        // tickTime 2 s: sessions may last up to 40 s, so a cut-off holder outlives the doctor's pass.
        server = EmbeddedEnsemble.start(EmbeddedEnsemble.Options.single().withTickTime(2000));
    }

    @AfterAll
    static void stopServer() {
        server.close();
    }

    private static String namespace() {
        return "doctor" + NS.incrementAndGet();
    }

    private static CoordClient client(String ns) throws InterruptedException {
        return client(ns, server.connectString());
    }

    private static CoordClient client(String ns, String connect) throws InterruptedException {
        return CoordClient.connect(CoordSettings.builder().connectString(connect).namespace(ns)
                .sessionTimeout(Duration.ofSeconds(30)).connectionTimeout(Duration.ofSeconds(10)).build());
    }

    /** Runs the doctor with --json on {@code ns} and returns its exit code and findings. */
    private static Report doctor(String ns, String... more) throws Exception {
        List<String> args = new ArrayList<>(List.of("doctor", "--connect", server.connectString(), "--namespace", ns, "--json"));
        args.addAll(List.of(more));
        if (!args.contains("--session-timeout")) {
            args.addAll(List.of("--session-timeout", "30s"));
        }
        Cli.Result r = Cli.run(args.toArray(String[]::new));
        assertTrue(r.err().isEmpty(), r.err());
        JsonNode o = JSON.readTree(r.out());
        assertEquals(r.exitCode(), o.get("exitCode").asInt());
        return new Report(r.exitCode(), o.get("findings"), r.out());
    }

    private record Report(int exitCode, JsonNode findings, String raw) {
        JsonNode find(String check, String path) {
            for (JsonNode f : findings) {
                if (f.get("check").asText().equals(check) && f.get("path").asText().equals(path)) {
                    return f;
                }
            }
            throw new AssertionError("no " + check + " finding on " + path + " in " + raw);
        }

        boolean has(String check) {
            for (JsonNode f : findings) {
                if (f.get("check").asText().equals(check)) {
                    return true;
                }
            }
            return false;
        }

        void onlyInfoBut(String... checks) {
            for (JsonNode f : findings) {
                if (!f.get("severity").asText().equals("INFO") && !List.of(checks).contains(f.get("check").asText())) {
                    throw new AssertionError("unexpected finding " + f + " in " + raw);
                }
            }
        }
    }

    private static void assertFinding(JsonNode f, String severity, String... texts) {
        assertEquals(severity, f.get("severity").asText(), f.toString());
        for (String t : texts) {
            assertTrue(f.get("seen").asText().contains(t), "'" + t + "' in " + f);
        }
    }

    @Test
    void aCleanNamespaceExitsZeroAndTheTextSaysClean() throws Exception {
        String ns = namespace();
        try (CoordClient c = client(ns);
             TaskQueue<JsonNode> q = TaskQueue.open(c, "jobs", Codec.json(JsonNode.class), QueueOptions.defaults());
             Election e = Election.open(c, "billing", ElectionOptions.builder().participantId("b-1").build())) {
            LockLease lease = Locks.mutex(c, Locks.path("orders", "1")).acquire(Duration.ofSeconds(5));
            q.enqueue(Codec.mapper().readTree("{\"job\":1}"));
            Leadership l = e.campaign(Duration.ofSeconds(10));
            Awaits.until("the leader acts", Duration.ofSeconds(10), () -> {
                try {
                    return e.leader().map(i -> i.acting()).orElse(false);
                } catch (InterruptedException ex) {
                    throw new IllegalStateException(ex);
                }
            });
            try (Group<JsonNode> g = Group.open(c, "workers", JsonNode.class)) {
                g.join("worker-1", Codec.mapper().readTree("{}"));
                ConfigStore.open(c, ConfigOptions.defaults()).put(ConfigKey.json("orders", "limits"), Codec.mapper().readTree("{}"));
                // The holder stamps heldSince into its node a second after it is granted: a write, but not the doctor's.
                Awaits.until("the holder stamped its node", Duration.ofSeconds(10), () -> {
                    try {
                        return Locks.inspect(c, Locks.path("orders", "1")).holder().orElseThrow().heldSince() != null;
                    } catch (InterruptedException ex) {
                        throw new IllegalStateException(ex);
                    }
                });
                Map<String, String> before = tree(c, "/");
                Report r = doctor(ns);
                assertEquals(0, r.exitCode(), r.raw());
                r.onlyInfoBut();
                assertEquals(before, tree(c, "/"), "the doctor wrote nothing");
            }
            Report r = doctor(ns);
            assertEquals(0, r.exitCode(), r.raw());
            assertFinding(r.find("server.mode", server.connectString()), "INFO", "mode standalone");
            Cli.Result text = Cli.run("doctor", "--connect", server.connectString(), "--namespace", ns, "--session-timeout", "30s");
            assertEquals(0, text.exitCode(), text.err());
            assertTrue(text.out().contains("0 error(s), 0 warning(s)") && text.out().contains("clean"), text.out());
            l.resign();
            lease.close();
        }
    }

    /** Every node under {@code path} with what a write would change: its data version, child version and pzxid. */
    private static Map<String, String> tree(CoordClient c, String path) throws Exception {
        Map<String, String> nodes = new java.util.TreeMap<>();
        org.apache.zookeeper.data.Stat stat = c.curator().checkExists().forPath(path);
        nodes.put(path, stat.getVersion() + "/" + stat.getCversion() + "/" + stat.getPzxid());
        for (String child : c.curator().getChildren().forPath(path)) {
            nodes.putAll(tree(c, (path.equals("/") ? "" : path) + "/" + child));
        }
        return nodes;
    }

    @Test
    void aSessionTimeoutTheServerCutsIsAWarning() throws Exception {
        String ns = namespace();
        try (CoordClient c = client(ns)) {
            c.curator().checkExists().forPath("/");
            Report r = doctor(ns, "--session-timeout", "1h");
            assertEquals(1, r.exitCode(), r.raw());
            assertFinding(r.find("session.timeout", server.connectString()), "WARNING", "requested session timeout 3600000 ms",
                    "negotiated 40000 ms");
        }
    }

    /** Coord holder info, as a lock node of session {@code c} records it. */
    private static String lockNode(CoordClient c, String lock, String owner, Instant heldSince) throws Exception {
        String data = "{\"host\":\"h1\",\"pid\":7,\"owner\":\"" + owner + "\",\"type\":\"lock\",\"permits\":null,\"heldSince\":"
                + heldSince.toEpochMilli() + "}";
        return c.curator().create().creatingParentsIfNeeded().withMode(CreateMode.EPHEMERAL_SEQUENTIAL)
                .forPath(lock + "/_c_" + java.util.UUID.randomUUID() + "-lock-", data.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void twoSessionsRecordingTheSameLockAndAHolderOlderThanItsParentAreErrors() throws Exception {
        String ns = namespace();
        try (CoordClient a = client(ns); CoordClient b = client(ns)) {
            lockNode(a, "/locks/orders/7", "billing-7", Instant.now().minus(Duration.ofHours(1)));
            lockNode(b, "/locks/orders/7", "billing-8", Instant.now());
            Report r = doctor(ns);
            assertEquals(2, r.exitCode(), r.raw());
            assertFinding(r.find("lock.two-holders", "/locks/orders/7"), "ERROR", "2 sessions record holding it",
                    a.session().idHex(), b.session().idHex(), "billing-7 pid 7 on h1", "billing-8 pid 7 on h1");
            assertFinding(r.find("lock.parent-recreated", "/locks/orders/7"), "ERROR", "billing-7",
                    "the parent was deleted and re-created under it");
            r.onlyInfoBut("lock.two-holders", "lock.parent-recreated");
        }
    }

    @Test
    void aRecentParentIsAWarningOnlyWithRecentParentSet() throws Exception {
        String ns = namespace();
        try (CoordClient c = client(ns)) {
            LockLease lease = Locks.mutex(c, Locks.path("orders", "9")).acquire(Duration.ofSeconds(5));
            assertFalse(doctor(ns).has("lock.parent-recreated"));
            Report r = doctor(ns, "--recent-parent", "24h");
            assertEquals(1, r.exitCode(), r.raw());
            assertFinding(r.find("lock.parent-recreated", "/locks/orders/9"), "WARNING", "newer than 24h");
            lease.close();
        }
    }

    @Test
    void waitersBehindAHolderWhoseClientIsGoneAreAnError() throws Exception {
        String ns = namespace();
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try (ClientProxy proxy = ClientProxy.to(server);
             CoordClient holder = client(ns, proxy.connectString()); CoordClient waiter = client(ns)) {
            CoordPath lock = Locks.path("orders", "3");
            LockLease lease = Locks.mutex(holder, lock, LockOptions.builder().ownerName("stuck-1").build()).acquire(Duration.ofSeconds(5));
            DistributedLock queued = Locks.mutex(waiter, lock);
            Future<LockLease> next = pool.submit(() -> queued.acquire(Duration.ofSeconds(60)));
            Awaits.until("the waiter queued", Duration.ofSeconds(10), () -> {
                try {
                    return !Locks.inspect(waiter, lock).waiters().isEmpty();
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            });
            Report before = doctor(ns);
            assertFalse(before.has("lock.dead-holder"), before.raw());
            proxy.refuse();
            proxy.cut();
            Report r = doctor(ns);
            assertEquals(2, r.exitCode(), r.raw());
            assertFinding(r.find("lock.dead-holder", lock.value()), "ERROR", "1 waiter(s) queued behind",
                    holder.session().idHex(), "stuck-1", "no server has a connection for that session");
            next.cancel(true);
            lease.close();
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void queuesReportDepthAtTheCapOldClaimsDeadLettersAndUndecodableNodes() throws Exception {
        String ns = namespace();
        try (CoordClient c = client(ns);
             TaskQueue<JsonNode> q = TaskQueue.open(c, "jobs", Codec.json(JsonNode.class), QueueOptions.defaults())) {
            q.enqueue(Codec.mapper().readTree("{\"job\":\"bad\"}"), TaskSpec.defaults().maxRetries(0));
            q.claim(Duration.ofSeconds(5)).orElseThrow().fail("no such image");
            q.enqueue(Codec.mapper().readTree("{\"job\":\"slow\"}"));
            var claim = q.claim(Duration.ofSeconds(5)).orElseThrow();
            String broken = q.enqueue(Codec.mapper().readTree("{\"job\":\"to be broken\"}")).name();
            c.curator().setData().forPath("/queues/jobs/tasks/" + broken, "\u0000{not a task".getBytes(StandardCharsets.UTF_8));

            Report r = doctor(ns, "--claim-age", "0s", "--queue-cap", "2");
            assertEquals(2, r.exitCode(), r.raw());
            assertFinding(r.find("queue.depth", "/queues/jobs"), "ERROR", "depth 2 at the cap of 2");
            assertFinding(r.find("queue.old-claim", "/queues/jobs"), "WARNING", "1 claim(s) older than 0s", claim.id().name());
            assertFinding(r.find("queue.dead-letters", "/queues/jobs"), "WARNING", "1 dead letter(s)");
            assertFinding(r.find("queue.undecodable", "/queues/jobs"), "ERROR", "1 task node(s) that do not decode", broken);
            Report warn = doctor(ns, "--queue-cap", "3", "--queue-depth-warn", "0.5");
            assertFinding(warn.find("queue.depth", "/queues/jobs"), "WARNING", "depth 2 of a cap of 3");
            claim.complete();
        }
    }

    @Test
    void aPartitionedQueueIsReadWithItsRecordedCountAndAHalfMadeQueueIsNotOpened() throws Exception {
        String ns = namespace();
        try (CoordClient c = client(ns);
             TaskQueue<JsonNode> q = TaskQueue.open(c, "parts", Codec.json(JsonNode.class),
                     QueueOptions.builder().partitions(4).build())) {
            q.enqueue(Codec.mapper().readTree("{\"job\":\"bad\"}"), TaskSpec.defaults().maxRetries(0));
            q.claim(Duration.ofSeconds(5)).orElseThrow().fail("no such image");
            c.curator().create().creatingParentsIfNeeded().forPath("/queues/half/tasks");

            Report r = doctor(ns);
            assertFinding(r.find("queue.dead-letters", "/queues/parts"), "WARNING", "1 dead letter(s)");
            assertFinding(r.find("queue.incomplete", "/queues/half"), "INFO", "no claims, dead, keys, completed directory");
            assertEquals(null, c.curator().checkExists().forPath("/queues/half/claims"), "the doctor created a directory");
        }
    }

    @Test
    void anElectionWithoutAnActingLeaderAndALeaderIdOnTwoSessions() throws Exception {
        String ns = namespace();
        try (CoordClient a = client(ns); CoordClient b = client(ns)) {
            // A Coord candidate node whose process never starts to act.
            a.curator().create().creatingParentsIfNeeded().withMode(CreateMode.EPHEMERAL_SEQUENTIAL)
                    .forPath("/elections/stuck/_c_" + java.util.UUID.randomUUID() + "-latch-",
                            "{\"participant\":\"ghost-1\",\"metadata\":{}}".getBytes(StandardCharsets.UTF_8));
            try (Election first = Election.open(a, "twins", ElectionOptions.builder().participantId("billing-7").build());
                 Election second = Election.open(b, "twins", ElectionOptions.builder().participantId("billing-7").build())) {
                Leadership l = first.campaign(Duration.ofSeconds(10));
                second.campaignAsync();
                Awaits.until("both candidates are listed", Duration.ofSeconds(10), () -> {
                    try {
                        return first.candidates().size() == 2;
                    } catch (InterruptedException e) {
                        throw new IllegalStateException(e);
                    }
                });
                Report r = doctor(ns, "--leaderless-after", "0s");
                assertEquals(2, r.exitCode(), r.raw());
                assertFinding(r.find("election.leaderless", "/elections/stuck"), "WARNING", "leader ghost-1", "is elected but not acting");
                assertFinding(r.find("election.two-leaders", "/elections/twins"), "ERROR", "the leader's id billing-7",
                        a.session().idHex(), b.session().idHex());
                r.onlyInfoBut("election.leaderless", "election.two-leaders");
                l.resign();
            }
        }
    }

    @Test
    void aBrokenBarrierIsAnErrorNamingWhy() throws Exception {
        String ns = namespace();
        try (CoordClient c = client(ns)) {
            DoubleBarrier lonely = DoubleBarrier.create(c, "batch", 3, BarrierOptions.builder().memberId("lonely").build());
            assertThrows(BarrierBrokenException.class, () -> lonely.enter(Duration.ofMillis(300)));
            Report r = doctor(ns);
            assertEquals(2, r.exitCode(), r.raw());
            assertFinding(r.find("barrier.broken", "/barriers/batch"), "ERROR", "generation 1 broke during enter", "timed out");
            assertTrue(r.find("barrier.broken", "/barriers/batch").get("advice").asText().contains("coord barrier reset batch"));
        }
    }

    @Test
    void aBarrierWaitingPastTheThresholdIsAWarningWithWhoIsMissing() throws Exception {
        String ns = namespace();
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try (CoordClient c = client(ns)) {
            DoubleBarrier early = DoubleBarrier.create(c, "nightly", 2, BarrierOptions.builder().memberId("early").build());
            Future<?> entering = pool.submit(() -> {
                early.enter(Duration.ofSeconds(60));
                return null;
            });
            Awaits.until("the member arrived", Duration.ofSeconds(10), () -> {
                try {
                    return DoubleBarrier.status(c, "nightly").arrived().size() == 1;
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            });
            Report r = doctor(ns, "--barrier-wait", "0s");
            assertEquals(1, r.exitCode(), r.raw());
            assertFinding(r.find("barrier.waiting", "/barriers/nightly"), "WARNING", "waiting for 1 of 2");
            entering.cancel(true);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aCanaryInFlightIsInfoAndAnInstanceOnAnOldVersionIsAWarning() throws Exception {
        String ns = namespace();
        try (CoordClient c = client(ns); CoordClient reader = client(ns)) {
            ConfigStore store = ConfigStore.open(c, ConfigOptions.defaults());
            ConfigKey<JsonNode> key = ConfigKey.json("orders", "limits");
            store.put(key, Codec.mapper().readTree("{\"max\":1}"));
            store.put(key, Codec.mapper().readTree("{\"max\":2}"));
            store.canary(key, Codec.mapper().readTree("{\"max\":3}"), 10);
            // A reader that applied version 0 and stayed there (its report, as readers write it).
            reader.curator().create().creatingParentsIfNeeded().withMode(CreateMode.EPHEMERAL)
                    .forPath("/config-reports/orders/limits/orders-3", ("{\"instance\":\"orders-3\",\"version\":0,\"revision\":1,"
                            + "\"canary\":false,\"stale\":false,\"appliedAt\":\"" + Instant.now() + "\"}").getBytes(StandardCharsets.UTF_8));
            Report r = doctor(ns);
            assertEquals(1, r.exitCode(), r.raw());
            assertFinding(r.find("config.canary", "/config/orders/limits"), "INFO", "canary in flight for 10.0% of instances");
            assertFinding(r.find("config.old-version", "/config/orders/limits"), "WARNING", "orders-3 on v0", "older version than v1");
            r.onlyInfoBut("config.old-version");
        }
    }

    @Test
    void aMemberThatJustJoinedIsNotedAsInfoAndLeavesTheExitCodeZero() throws Exception {
        String ns = namespace();
        try (CoordClient c = client(ns); Group<JsonNode> g = Group.open(c, "workers", JsonNode.class)) {
            g.join("worker-1", Codec.mapper().readTree("{}"));
            Report r = doctor(ns);
            assertEquals(0, r.exitCode(), r.raw());
            assertFinding(r.find("membership.recent-join", "/groups/workers/worker-1"), "INFO", "joined or rejoined within 60s",
                    c.session().idHex());
        }
    }

    @Test
    void aFlapSeenDuringTheFlapWatchIsAWarningWithItsCount() throws Exception {
        String ns = namespace();
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try (CoordClient member = client(ns); Group<JsonNode> g = Group.open(member, "workers", JsonNode.class)) {
            g.join("worker-2", Codec.mapper().readTree("{}"));
            String groupPath = "/" + ns + "/groups/workers";
            long baseline = watchers(groupPath);
            Duration watch = Awaits.scaled(Duration.ofSeconds(10));
            Future<Report> running = pool.submit(() -> doctor(ns, "--flap-watch", watch.toMillis() + "ms"));
            // The doctor's group observer sets its watch when it opens the group: then the window is open.
            Awaits.until("the doctor watches the group", Duration.ofSeconds(20), () -> watchers(groupPath) > baseline);
            long old = Faults.expireSession(member, server);
            Faults.awaitNewSession(member, old, Duration.ofSeconds(20));
            Awaits.until("worker-2 rejoined", Duration.ofSeconds(20), () -> g.view().members().containsKey("worker-2")
                    && g.view().members().get("worker-2").session() != old);
            Report r = running.get(watch.toMillis() + Awaits.scaled(Duration.ofSeconds(30)).toMillis(), TimeUnit.MILLISECONDS);
            assertEquals(1, r.exitCode(), r.raw());
            assertFinding(r.find("membership.flap", "/groups/workers/worker-2"), "WARNING", "left and rejoined 1 time(s)");
        } finally {
            pool.shutdownNow();
        }
    }

    /** How many sessions watch {@code path}, from the server's {@code wchp}. */
    private static long watchers(String path) {
        try (java.net.Socket s = new java.net.Socket("127.0.0.1", server.clientPort(0))) {
            s.setSoTimeout(5000);
            s.getOutputStream().write("wchp".getBytes(StandardCharsets.US_ASCII));
            List<String> lines = new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8).lines().toList();
            int at = lines.indexOf(path);
            return at < 0 ? 0 : lines.subList(at + 1, lines.size()).stream().takeWhile(l -> !l.startsWith("/")).filter(l -> l.contains("0x")).count();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Test
    void aRecipeNodeOutsideTheClientsAclPolicyIsAWarning() throws Exception {
        String ns = namespace();
        try (CoordClient c = client(ns)) {
            c.curator().create().creatingParentsIfNeeded().withACL(ZooDefs.Ids.READ_ACL_UNSAFE).forPath("/locks/by-hand");
            Report r = doctor(ns);
            assertEquals(1, r.exitCode(), r.raw());
            assertFinding(r.find("acl.outside-policy", "/locks/by-hand"), "WARNING", "ACL [world:anyone:r]",
                    "policy gives [world:anyone:rwcda]");
        }
    }

    @Test
    void watchedPathsAboveTheThresholdAreAWarning() throws Exception {
        String ns = namespace();
        try (CoordClient c = client(ns); Group<JsonNode> g = Group.open(c, "watched", JsonNode.class)) {
            Report r = doctor(ns, "--max-watchers", "0");
            assertEquals(1, r.exitCode(), r.raw());
            assertFinding(r.find("server.watches", "/" + ns + "/groups/watched"), "WARNING", "sessions watch this path");
        }
    }

    @Test
    void wordsTheServerDoesNotAllowAreSaidSoNotGuessed() throws Exception {
        java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("coord-doctor-zk-");
        int port;
        try (java.net.ServerSocket free = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            port = free.getLocalPort();
        }
        java.nio.file.Path cfg = dir.resolve("zoo.cfg");
        java.nio.file.Files.writeString(cfg, "tickTime=2000\ndataDir=" + dir.resolve("data") + "\nclientPort=" + port
                + "\nclientPortAddress=127.0.0.1\nadmin.enableServer=false\n4lw.commands.whitelist=ruok\n");
        String connect = "127.0.0.1:" + port;
        String ns = namespace();
        try (io.coord.test.ChildJvm zk = io.coord.test.ChildJvm.start("org.apache.zookeeper.server.ZooKeeperServerMain", cfg.toString())) {
            Awaits.until("the child server answers ruok", Duration.ofSeconds(60), () -> imok(port));
            try (CoordClient holder = client(ns, connect); CoordClient waiter = client(ns, connect)) {
                CoordPath lock = Locks.path("orders", "5");
                LockLease lease = Locks.mutex(holder, lock).acquire(Duration.ofSeconds(5));
                ExecutorService pool = Executors.newSingleThreadExecutor();
                try {
                    Future<LockLease> next = pool.submit(() -> Locks.mutex(waiter, lock).acquire(Duration.ofSeconds(60)));
                    Awaits.until("the waiter queued", Duration.ofSeconds(10), () -> {
                        try {
                            return !Locks.inspect(waiter, lock).waiters().isEmpty();
                        } catch (InterruptedException e) {
                            throw new IllegalStateException(e);
                        }
                    });
                    Cli.Result r = Cli.run("doctor", "--connect", connect, "--namespace", ns, "--session-timeout", "30s", "--json");
                    assertEquals(0, r.exitCode(), r.out() + r.err());
                    Report report = new Report(r.exitCode(), JSON.readTree(r.out()).get("findings"), r.out());
                    assertFinding(report.find("server.mode", connect), "INFO",
                            "mode and outstanding requests not checked: mntr is not in this server's 4lw.commands.whitelist");
                    assertFinding(report.find("server.watches", connect), "INFO",
                            "watch counts per path not checked: wchp is not in this server's 4lw.commands.whitelist");
                    assertFinding(report.find("lock.dead-holder", lock.value()), "INFO", "could not check",
                            "cons is not in this server's 4lw.commands.whitelist");
                    next.cancel(true);
                } finally {
                    pool.shutdownNow();
                }
                lease.close();
            }
        } finally {
            try (var files = java.nio.file.Files.walk(dir)) {
                files.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
            }
        }
    }

    private static boolean imok(int port) {
        try (java.net.Socket s = new java.net.Socket("127.0.0.1", port)) {
            s.setSoTimeout(2000);
            s.getOutputStream().write("ruok".getBytes(StandardCharsets.US_ASCII));
            return new String(s.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).equals("imok");
        } catch (java.io.IOException e) {
            return false;
        }
    }

    @Test
    void aWrongConnectStringIsOneLineAndExitTwo() {
        Cli.Result r = Cli.run("doctor", "--connect", "127.0.0.1:1", "--connect-timeout", "1s");
        assertEquals(2, r.exitCode(), r.out() + r.err());
        assertEquals(1, r.err().strip().lines().count(), r.err());
        assertTrue(r.err().startsWith("coord doctor: ") && r.err().contains("127.0.0.1:1"), r.err());
    }

    @Test
    void aMissingNamespaceIsOneLineAndExitTwoAndIsNotCreated() throws Exception {
        Cli.Result r = Cli.run("doctor", "--connect", server.connectString(), "--namespace", "no-such-ns");
        assertEquals(2, r.exitCode(), r.out() + r.err());
        assertEquals("coord doctor: namespace 'no-such-ns' does not exist on " + server.connectString()
                + " (nothing to examine; check the --namespace value)", r.err().strip());
        try (CoordClient c = client("doctor-probe")) {
            assertEquals(null, c.curator().usingNamespace(null).checkExists().forPath("/no-such-ns"));
        }
    }

    @Test
    void noReadPermissionIsOneLineAndExitTwo() throws Exception {
        String ns = namespace();
        try (CoordClient owner = CoordClient.connect(CoordSettings.builder().connectString(server.connectString())
                .credentials(io.coord.Credentials.digest("ops", "s3cret"))
                .aclPolicy(AclPolicy.builder().defaultAcl(AclEntry.digest("ops", "s3cret", ZooDefs.Perms.ALL)).build()).build())) {
            owner.curator().create().forPath("/" + ns);
        }
        Cli.Result r = Cli.run("doctor", "--connect", server.connectString(), "--namespace", ns);
        assertEquals(2, r.exitCode(), r.out() + r.err());
        assertEquals(1, r.err().strip().lines().count(), r.err());
        assertTrue(r.err().startsWith("coord doctor: no READ permission on /" + ns + " for anonymous"), r.err());
    }
}
