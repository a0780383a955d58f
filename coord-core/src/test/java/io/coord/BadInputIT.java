package io.coord;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.coord.internal.LeaseNodes;
import io.coord.internal.NodeLease;
import io.coord.internal.Payloads;
import io.coord.internal.Zk;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.AddWatchMode;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooDefs.Perms;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * RELIABILITY.md (c), the rows coord-core owns, as one table: each row is one test that checks
 * the same four things against a real server:
 * <ol>
 *   <li>the documented error type, and that it is final ({@code retryable() == false}: nothing
 *       retries it);</li>
 *   <li>the message quotes the bad value and names the rule;</li>
 *   <li>it comes within 1 s (stretched by {@code -Dcoord.test.timing}), so nothing waited for a
 *       timeout or retried;</li>
 *   <li>nothing on the server changed: the whole tree (every path and its mzxid) is the same
 *       before and after.</li>
 * </ol>
 * Rows 18–23 ({@link AuthBadInputIT}), 24 ({@link SaslRequiredIT}) and 25 ({@link TlsIT}) need
 * servers of their own; the clamp warning of row 10 is in {@link SessionIT}; the codec's spellings
 * of rows 14–17 in {@link CodecTest}. The recipe modules make the same four checks through
 * coord-test's {@code BadInputs}: row 13 for a queue and row 30 in coord-queue
 * {@code TaskBadInputIT}, 27 in coord-lock {@code CuratorViewIT}, 28 in {@code FencedWriteAfterLossIT},
 * 29 in coord-barrier {@code BarrierBadInputIT}, 31 in coord-naming {@code InstanceBadInputIT},
 * 15 for a writer and 32 for a config store and reader in coord-config ({@code ConfigStoreIT},
 * {@code ConfigReadAuthorizationIT}). docs/OPERATING.md has the whole table.
 */
class BadInputIT {
    @RegisterExtension
    static final CoreTestServer ZK = new CoreTestServer();

    private static final Credentials ADMIN = Credentials.digest("badinput-admin", "admin-pw-7f3k");
    private static final CoordPath SECRET = CoordPath.of("/secret/plans");
    private static final CoordPath TARGET = CoordPath.of("/data/target");
    private static final Duration BOUND = Duration.ofSeconds(1);

    private CuratorFramework audit;

    @BeforeEach
    void auditor() throws InterruptedException {
        audit = SecurityFixtures.rawClient(ZK.connectString(), ADMIN); // sees every node, the admin-only ones too
    }

    @AfterEach
    void closeAuditor() {
        audit.close();
    }

    /** What a row needs: clients of this test's namespace, and nodes made before the "before" picture. */
    final class Fixture {
        /** An anonymous client; its namespace and {@code /app} exist (Curator creates the namespace node on first use). */
        CoordClient anonymous() throws Exception {
            CoordClient c = ZK.client();
            Zk.of(c).call(CoordPath.of("/app"), () -> c.curator().create().orSetData().creatingParentsIfNeeded().forPath("/app"));
            return c;
        }

        /** A client that created {@link #SECRET} (and {@link #TARGET}) readable only by {@link #ADMIN}. */
        CoordClient admin() throws Exception {
            CoordClient admin = ZK.client(b -> b.credentials(ADMIN).aclPolicy(AclPolicy.builder()
                    .rule("/secret", AclEntry.digest(ADMIN.identity(), ADMIN.secret(), Perms.ALL)).build()));
            Zk.of(admin).call(SECRET, () -> admin.curator().create().creatingParentsIfNeeded().forPath(SECRET.value(), new byte[] {1}));
            Zk.of(admin).call(TARGET, () -> admin.curator().create().creatingParentsIfNeeded().forPath(TARGET.value(), new byte[] {1}));
            return admin;
        }

        NodeLease lease(CoordClient client) throws InterruptedException {
            Zk zk = Zk.of(client);
            return LeaseNodes.lease(zk, LeaseNodes.create(zk, CoordPath.of("/locks/badinput"), "lock-", new byte[0], true));
        }
    }

    /** The bad call, made after {@code setup}; it must throw. */
    interface Attempt<S> {
        void run(S prepared) throws Exception;
    }

    interface Setup<S> {
        S prepare(Fixture f) throws Exception;
    }

    /**
     * One row of the table: {@code input} is what a user got wrong (for the test name),
     * {@code named} the strings the message must contain (the bad value and the rule).
     */
    record Row<S>(String row, String input, Class<? extends CoordException> error, Setup<S> setup, Attempt<S> attempt,
                  List<String> named) {
        @Override
        public String toString() {
            return "row " + row + ": " + CoordPath.quote(input.length() > 60 ? input.substring(0, 60) + "..." : input)
                    + " -> " + error.getSimpleName();
        }
    }

    private static Row<Void> local(String row, String input, Class<? extends CoordException> error, Attempt<Void> attempt,
                                   String... named) {
        return new Row<>(row, input, error, f -> null, attempt, List.of(named));
    }

    private static CoordSettings.Builder builder() {
        return CoordSettings.builder().connectString("127.0.0.1:2181");
    }

    static Stream<Row<?>> rows() {
        String longName = "n".repeat(CoordPath.MAX_SEGMENT_LENGTH + 1);
        String longPath = "/abcdefghij".repeat(CoordPath.MAX_PATH_LENGTH / 11 + 1);
        List<Row<?>> rows = new ArrayList<>(List.of(
                local("1", "a/b", InvalidPathException.class, x -> CoordPath.of("a/b"), "\"a/b\"", "must start with '/'"),
                local("2", "/locks/x/", InvalidPathException.class, x -> CoordPath.of("/locks/x/"), "\"/locks/x/\"", "must not end with '/'"),
                local("3", "/locks/order//123", InvalidPathException.class, x -> CoordPath.of("/locks/order//123"),
                        "\"/locks/order//123\"", "empty segment"),
                local("4", "/a/../b", InvalidPathException.class, x -> CoordPath.of("/a/../b"), "\"/a/../b\"", "\"..\"",
                        "relative segment"),
                local("4", "/locks/.", InvalidPathException.class, x -> CoordPath.of("/locks/."), "\"/locks/.\"", "\".\"",
                        "relative segment"),
                local("5", "/a\u0001b", InvalidPathException.class, x -> CoordPath.of("/a\u0001b"), "\"/a\\u0001b\"", "U+0001",
                        "forbidden character"),
                local("5", "/a\ufff0b", InvalidPathException.class, x -> CoordPath.of("/a\ufff0b"), "U+FFF0", "forbidden character"),
                local("6", "/zookeeper/x", ReservedPathException.class, x -> CoordPath.of("/zookeeper/x"), "\"/zookeeper/x\"",
                        "ZooKeeper reserves"),
                local("6", "/zookeeper", ReservedPathException.class, x -> CoordPath.of("/locks").parent().child("zookeeper"),
                        "\"/zookeeper\"", "ZooKeeper reserves"),
                local("6", "namespace zookeeper", ConfigurationException.class, x -> builder().namespace("zookeeper"),
                        "namespace \"zookeeper\"", "/zookeeper", "ZooKeeper reserves"),
                local("7", "name order/123", InvalidNameException.class, x -> CoordPath.of("/locks").child("order/123"),
                        "\"order/123\"", "contains '/'"),
                local("7", longName, InvalidNameException.class, x -> CoordPath.validateName(longName), "\"nnnn",
                        "256 characters", "limit of 255"),
                local("7", longPath, InvalidPathException.class, x -> CoordPath.of(longPath), "\"/abcdefghij/abcdefghij",
                        longPath.length() + " characters", "limit of 1024"),
                local("8", "namespace /app", ConfigurationException.class, x -> builder().namespace("/app"), "\"/app\"",
                        "must not start or end with '/'"),
                local("8", "namespace app/", ConfigurationException.class, x -> builder().namespace("app/"), "\"app/\"",
                        "must not start or end with '/'"),
                local("8", "namespace a//b", ConfigurationException.class, x -> builder().namespace("a//b"), "\"a//b\"",
                        "empty segment"),
                local("9", "localhost", ConfigurationException.class, x -> CoordSettings.builder().connectString("localhost"),
                        "\"localhost\"", "not host:port"),
                local("9", "", ConfigurationException.class, x -> CoordSettings.builder().connectString(""), "connectString is empty",
                        "host:port"),
                local("9", "host:70000", ConfigurationException.class, x -> CoordSettings.builder().connectString("host:70000"),
                        "\"host:70000\"", "port 70000", "1..65535"),
                local("9", "a:1/chroot/", ConfigurationException.class, x -> CoordSettings.builder().connectString("a:1/chroot/"),
                        "\"a:1/chroot/\"", "bad chroot", "\"/chroot/\"", "must not end with '/'"),
                local("10", "sessionTimeout 0", ConfigurationException.class, x -> builder().sessionTimeout(Duration.ZERO),
                        "sessionTimeout", "must be > 0", "PT0S"),
                local("10", "connectionTimeout -1 s", ConfigurationException.class,
                        x -> builder().connectionTimeout(Duration.ofSeconds(-1)), "connectionTimeout", "must be > 0", "PT-1S")));

        // Rows that reach the server, or would without the check.
        rows.add(new Row<>("11", "1 MiB guarded value", ValueTooLargeException.class, f -> f.lease(f.anonymous()),
                lease -> lease.guardedSetData(TARGET, new byte[1_048_576]), List.of(TARGET.value(), "1048576 bytes",
                        "limit of " + CoordSettings.DEFAULT_MAX_VALUE_BYTES, "nothing was written")));
        rows.add(new Row<>("12", "2 x 600 KB transaction", ValueTooLargeException.class, f -> {
            CoordClient c = f.anonymous();
            NodeLease lease = f.lease(c);
            var set = c.curator().transactionOp().setData().forPath(TARGET.value(), new byte[600_000]);
            var create = c.curator().transactionOp().create().forPath("/data/other", new byte[600_000]);
            return (Attempt<Void>) x -> lease.guardedTransaction(List.of(set, create));
        }, a -> a.run(null), List.of("transaction of 3 operations", "over the limit of " + Payloads.TRANSACTION_LIMIT,
                "nothing was written")));
        rows.add(new Row<>("13", "a 4th child under a cap of 3", TooManyChildrenException.class, f -> {
            CoordClient c = f.anonymous();
            CoordPath parent = CoordPath.of("/queues/jobs/tasks");
            Zk.of(c).call(parent, () -> c.curator().create().creatingParentsIfNeeded().forPath(parent.value()));
            for (int i = 0; i < 3; i++) {
                Payloads.checkChildCap(Zk.of(c), parent, 3);
                CoordPath child = parent.child("t" + i);
                Zk.of(c).call(child, () -> c.curator().create().forPath(child.value()));
            }
            return (Attempt<Void>) x -> Payloads.checkChildCap(Zk.of(c), parent, 3);
        }, a -> a.run(null), List.of("/queues/jobs/tasks", "already has 3 children", "cap of 3", "nothing was added")));
        rows.add(new Row<>("26", "create /app/missing/child", NoParentException.class, Fixture::anonymous,
                c -> Zk.of(c).call(CoordPath.of("/app/missing/child"),
                        () -> c.curator().create().forPath("/app/missing/child", new byte[] {1})),
                List.of("/app/missing/child", "its parent /", "/app/missing does not exist")));
        rows.add(new Row<>("32", "getData " + SECRET, NotAuthorizedException.class, f -> {
            f.admin();
            return f.anonymous();
        }, c -> Zk.of(c).call(SECRET, () -> c.curator().getData().forPath(SECRET.value())),
                List.of(SECRET.value(), "anonymous", "does not grant")));
        rows.add(new Row<>("32", "getData with a watch " + SECRET, NotAuthorizedException.class, f -> {
            f.admin();
            return f.anonymous();
        }, c -> Zk.of(c).call(SECRET, () -> c.curator().getData().usingWatcher((Watcher) e -> { }).forPath(SECRET.value())),
                List.of(SECRET.value(), "anonymous", "does not grant")));
        rows.add(new Row<>("32", "getChildren with a watch /secret", NotAuthorizedException.class, f -> {
            f.admin();
            return f.anonymous();
        }, c -> Zk.of(c).call(SECRET.parent(), () -> c.curator().getChildren().usingWatcher((Watcher) e -> { }).forPath("/secret")),
                List.of("/secret", "anonymous", "does not grant")));
        rows.add(new Row<>("32", "addWatch persistent " + SECRET, NotAuthorizedException.class, f -> {
            f.admin();
            return f.anonymous();
        }, c -> Zk.of(c).addWatch(SECRET, AddWatchMode.PERSISTENT, e -> { }),
                List.of("cannot watch " + SECRET.value(), "anonymous", "does not grant")));
        rows.add(new Row<>("32", "addWatch persistent recursive /secret", NotAuthorizedException.class, f -> {
            f.admin();
            return f.anonymous();
        }, c -> Zk.of(c).addWatch(SECRET.parent(), AddWatchMode.PERSISTENT_RECURSIVE, e -> { }),
                List.of("cannot watch /secret", "anonymous", "does not grant")));
        return rows.stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    <S> void eachRowFailsFastWithItsErrorNamingTheValueAndChangesNothing(Row<S> row) throws Exception {
        S prepared = row.setup().prepare(new Fixture());
        Map<String, Long> before = tree();
        long start = System.nanoTime();
        Throwable thrown = null;
        try {
            row.attempt().run(prepared);
        } catch (Throwable t) {
            thrown = t;
        }
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        if (thrown == null) {
            fail(row + ": accepted");
        }
        CoordException e = assertInstanceOf(row.error(), thrown, row + ": wrong error " + thrown);
        System.out.println(row + " in " + took.toMillis() + " ms: " + e.getMessage());
        for (String part : row.named()) {
            assertTrue(e.getMessage().contains(part), row + ": the message names " + CoordPath.quote(part) + ": " + e.getMessage());
        }
        assertFalse(e.retryable(), row + ": a bad input is final, never retried");
        Duration bound = scaled(BOUND);
        assertTrue(took.compareTo(bound) < 0, row + ": refused within " + bound + ", took " + took);
        assertEquals(before, tree(), row + ": nothing on the server was created, deleted or changed");
    }

    /**
     * Why {@link Zk#addWatch} reads after adding: ZooKeeper itself accepts a persistent watch on a
     * node the client cannot read, and then never delivers its events. If this ever fails, the
     * server checks READ at addWatch, and the row 32 addWatch rows still hold.
     */
    @org.junit.jupiter.api.Test
    void row32RawAddWatchWithoutReadIsAcceptedByTheServerAndNeverFires() throws Exception {
        new Fixture().admin();
        CoordClient anonymous = ZK.client();
        java.util.concurrent.CountDownLatch fired = new java.util.concurrent.CountDownLatch(1);
        anonymous.curator().watchers().add().withMode(AddWatchMode.PERSISTENT).usingWatcher((Watcher) e -> fired.countDown())
                .forPath(SECRET.value());
        audit.setData().forPath("/" + ZK.namespace() + SECRET.value(), new byte[] {2});
        Zk.of(anonymous).call(TARGET, () -> anonymous.curator().setData().forPath(TARGET.value(), new byte[] {2}));
        assertFalse(fired.await(200, java.util.concurrent.TimeUnit.MILLISECONDS), "the server filtered the event out");
    }

    /**
     * Every node of the server with its mzxid (a create, delete or write changes this map), except
     * under earlier tests' namespaces: the server may delete their empty containers at any time.
     */
    private Map<String, Long> tree() throws Exception {
        String ours = "/" + ZK.namespace();
        Map<String, Long> out = new LinkedHashMap<>();
        List<String> todo = new ArrayList<>(List.of("/"));
        while (!todo.isEmpty()) {
            String path = todo.remove(0);
            if (path.matches("/t\\d+") && !path.equals(ours)) {
                continue;
            }
            Stat stat = new Stat();
            List<String> children = audit.getChildren().storingStatIn(stat).forPath(path);
            out.put(path, stat.getMzxid());
            children.stream().sorted().forEach(child -> todo.add(path.equals("/") ? "/" + child : path + "/" + child));
        }
        return out;
    }

    /** {@code d} stretched by {@code -Dcoord.test.timing} (coord-test's Awaits cannot be used here: it depends on coord-core). */
    static Duration scaled(Duration d) {
        double factor = Double.parseDouble(System.getProperty("coord.test.timing", "1").trim());
        return Duration.ofNanos((long) (d.toNanos() * Math.max(1.0, factor)));
    }
}
