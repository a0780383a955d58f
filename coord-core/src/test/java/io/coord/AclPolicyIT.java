package io.coord;

import static io.coord.SecurityFixtures.expectedAcl;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.internal.Zk;
import io.coord.internal.ZkCall;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.api.ACLProvider;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooDefs.Perms;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.ACL;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The ACL policy against a real server: digest credentials per role, and the ACL audit that
 * walks everything Coord created and finds no node whose ACL is outside the policy — parents,
 * containers, the namespace node and transaction creates included.
 */
class AclPolicyIT {
    private static final AtomicInteger NAMESPACES = new AtomicInteger();
    private static final Credentials ADMIN = Credentials.digest("config-admin", "admin-pw-7f3a9c");
    private static final Credentials ALICE = Credentials.digest("alice", "alice-pw-51d2e8");

    private static TestingServer server;
    private final List<AutoCloseable> toClose = new ArrayList<>();

    @BeforeAll
    static void startServer() throws Exception {
        server = SecurityFixtures.plaintextServer();
    }

    @AfterAll
    static void stopServer() throws Exception {
        server.close();
    }

    @AfterEach
    void closeClients() throws Exception {
        for (int i = toClose.size() - 1; i >= 0; i--) {
            toClose.get(i).close();
        }
        toClose.clear();
    }

    /** default: everyone; /config: everyone reads, config-admin writes; /secret: config-admin only; /owned, /mine: the creator. */
    static AclPolicy policy() {
        return AclPolicy.builder()
                .defaultAcl(AclEntry.anyone(Perms.ALL))
                .rule("/config", AclEntry.anyone(Perms.READ), AclEntry.digest(ADMIN.identity(), ADMIN.secret(), Perms.ALL))
                .rule("/secret", AclEntry.digest(ADMIN.identity(), ADMIN.secret(), Perms.ALL))
                .rule("/owned", AclEntry.creator(Perms.ALL))
                .rule("/mine", AclEntry.creator(Perms.ALL))
                .build();
    }

    /** The same policy minus the creator rule, for clients with no identity (they may not use 'auth' ACLs). */
    static AclPolicy anonymousPolicy() {
        return AclPolicy.builder()
                .defaultAcl(AclEntry.anyone(Perms.ALL))
                .rule("/config", AclEntry.anyone(Perms.READ), AclEntry.digest(ADMIN.identity(), ADMIN.secret(), Perms.ALL))
                .rule("/secret", AclEntry.digest(ADMIN.identity(), ADMIN.secret(), Perms.ALL))
                .build();
    }

    private CoordClient client(String namespace, AclPolicy policy, Credentials... credentials) throws InterruptedException {
        CoordSettings.Builder b = SecurityFixtures.settings(server.getConnectString()).namespace(namespace).aclPolicy(policy);
        for (Credentials c : credentials) {
            b.credentials(c);
        }
        CoordClient c = CoordClient.connect(b.build());
        toClose.add(c);
        return c;
    }

    private CuratorFramework raw(Credentials... credentials) throws InterruptedException {
        CuratorFramework raw = SecurityFixtures.rawClient(server.getConnectString(), credentials);
        toClose.add(raw);
        return raw;
    }

    private static <T> T op(CoordClient client, String path, ZkCall<T> call) throws InterruptedException {
        return Zk.of(client).call(CoordPath.of(path), call);
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void digestCredentialsPerRoleLetOnlyTheAdminWriteConfigWhileEveryoneStillReadsIt() throws Exception {
        String ns = "acl" + NAMESPACES.incrementAndGet();
        CoordClient admin = client(ns, policy(), ADMIN);
        CoordClient alice = client(ns, policy(), ALICE);
        CoordClient anonymous = client(ns, anonymousPolicy());

        op(admin, "/config/db/url", () -> admin.curator().create().creatingParentsIfNeeded().forPath("/config/db/url", bytes("v1")));
        op(admin, "/config/db/url", () -> admin.curator().setData().forPath("/config/db/url", bytes("v2")));

        NotAuthorizedException write = assertThrows(NotAuthorizedException.class,
                () -> op(alice, "/config/db/url", () -> alice.curator().setData().forPath("/config/db/url", bytes("evil"))));
        assertTrue(write.getMessage().contains("/config/db/url") && write.getMessage().contains("digest:alice"),
                "the error names the path and this client's identity: " + write.getMessage());
        assertFalse(write.retryable(), "NoAuth is final");

        NotAuthorizedException create = assertThrows(NotAuthorizedException.class,
                () -> op(alice, "/config/new", () -> alice.curator().create().forPath("/config/new", bytes("x"))));
        assertTrue(create.getMessage().contains("/config/new") && create.getMessage().contains("digest:alice"), create.getMessage());

        NotAuthorizedException anon = assertThrows(NotAuthorizedException.class,
                () -> op(anonymous, "/config/db/url", () -> anonymous.curator().setData().forPath("/config/db/url", bytes("evil"))));
        assertTrue(anon.getMessage().contains("/config/db/url") && anon.getMessage().contains("anonymous"), anon.getMessage());

        assertArrayEquals(bytes("v2"), op(alice, "/config/db/url", () -> alice.curator().getData().forPath("/config/db/url")),
                "a client without the admin digest still reads /config");
        assertArrayEquals(bytes("v2"), op(anonymous, "/config/db/url", () -> anonymous.curator().getData().forPath("/config/db/url")));
        assertNull(op(admin, "/config/new", () -> admin.curator().checkExists().forPath("/config/new")),
                "the refused create left nothing behind");
    }

    @Test
    void everyNodeCoordCreatesCarriesThePolicyAclIncludingParentsContainersNamespaceAndTransactions() throws Exception {
        String ns = "audit" + NAMESPACES.incrementAndGet();
        CoordClient admin = client(ns, policy(), ADMIN);
        CoordClient alice = client(ns, policy(), ALICE);
        CuratorFramework c = admin.curator();

        op(admin, "/config/a/b/c", () -> c.create().creatingParentsIfNeeded().forPath("/config/a/b/c", bytes("1")));
        op(admin, "/locks/x", () -> c.create().creatingParentContainersIfNeeded().withProtection()
                .withMode(CreateMode.EPHEMERAL_SEQUENTIAL).forPath("/locks/x/lock-"));
        op(admin, "/secret/k1/k2", () -> c.create().creatingParentsIfNeeded().forPath("/secret/k1/k2"));
        op(admin, "/owned/mine/leaf", () -> c.create().creatingParentContainersIfNeeded().forPath("/owned/mine/leaf"));
        op(admin, "/ensured/deep", () -> {
            c.createContainers("/ensured/deep");
            return null;
        });
        op(admin, "/txroot", () -> c.transaction().forOperations(
                c.transactionOp().create().forPath("/txroot"),
                c.transactionOp().create().forPath("/txroot/child"),
                c.transactionOp().create().forPath("/config/tx"),
                c.transactionOp().create().forPath("/owned/tx")));
        op(admin, "/plain", () -> c.create().withMode(CreateMode.PERSISTENT_SEQUENTIAL).forPath("/plain-"));
        op(alice, "/mine/data", () -> alice.curator().create().creatingParentsIfNeeded().forPath("/mine/data"));

        CuratorFramework auditor = raw(ADMIN, ALICE);
        List<String> audited = new ArrayList<>();
        List<String> violations = audit(auditor, ns, Map.of("/mine", List.of(ALICE)), audited);
        assertEquals(List.of(), violations, "nodes with an ACL outside the policy");
        assertTrue(audited.size() >= 22, "the audit saw the whole tree, namespace node included: " + audited);
        assertTrue(audited.contains("/" + ns) && audited.contains("/" + ns + "/config/a") && audited.contains("/" + ns + "/owned/tx"),
                "parents, the namespace node and transaction creates were audited: " + audited);

        // The ACLs are enforced, not just stored (a server with zookeeper.skipACL=yes would fail here).
        CoordClient anonymous = client(ns, anonymousPolicy());
        assertThrows(NotAuthorizedException.class,
                () -> op(anonymous, "/secret/k1", () -> anonymous.curator().getData().forPath("/secret/k1")));
        assertThrows(NotAuthorizedException.class,
                () -> op(anonymous, "/owned/mine", () -> anonymous.curator().getData().forPath("/owned/mine")));
    }

    @Test
    void aclAuditReportsANodeCreatedOutsideThePolicy() throws Exception {
        String ns = "leak" + NAMESPACES.incrementAndGet();
        CoordClient admin = client(ns, policy(), ADMIN);
        op(admin, "/secret/ok", () -> admin.curator().create().creatingParentsIfNeeded().forPath("/secret/ok"));
        CuratorFramework auditor = raw(ADMIN);
        // A plain Curator client without Coord's ACL provider creates with OPEN_ACL_UNSAFE.
        auditor.create().forPath("/" + ns + "/secret/leaked");

        List<String> violations = audit(auditor, ns, Map.of(), new ArrayList<>());
        assertEquals(1, violations.size(), "exactly the leaked node: " + violations);
        assertTrue(violations.get(0).startsWith("/" + ns + "/secret/leaked"), violations.get(0));
    }

    @Test
    void creatingParentsUnderAnAncestorTheClientCannotReadFailsWithNotAuthorized() throws Exception {
        String ns = "noread" + NAMESPACES.incrementAndGet();
        CoordClient admin = client(ns, policy(), ADMIN);
        CoordClient alice = client(ns, policy(), ALICE);
        op(admin, "/secret/base", () -> admin.curator().create().creatingParentsIfNeeded().forPath("/secret/base"));

        // Since 3.9.2 exists() needs READ; Curator >= 5.7.1 walks parents bottom-up, so this must be NoAuth, not a hang.
        NotAuthorizedException e = assertThrows(NotAuthorizedException.class, () -> op(alice, "/secret/base/x/y",
                () -> alice.curator().create().creatingParentsIfNeeded().forPath("/secret/base/x/y")));
        assertTrue(e.getMessage().contains("digest:alice"), e.getMessage());
        assertNull(raw(ADMIN).checkExists().forPath("/" + ns + "/secret/base/x"), "no parent was created");
    }

    @Test
    void credentialsAreReappliedOnTheNewSessionAfterExpiry() throws Exception {
        String ns = "expiry" + NAMESPACES.incrementAndGet();
        CoordClient admin = client(ns, policy(), ADMIN);
        op(admin, "/config/k", () -> admin.curator().create().creatingParentsIfNeeded().forPath("/config/k", bytes("1")));
        long before = admin.session().id();

        expireOnServer(admin);
        long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
        while (sessionIdOrZero(admin) == before || sessionIdOrZero(admin) == 0) {
            assertTrue(System.nanoTime() < deadline, "no new session within 15 s");
            Thread.sleep(20);
        }
        assertNotEquals(before, admin.session().id());
        op(admin, "/config/k", () -> admin.curator().setData().forPath("/config/k", bytes("2")));
        assertArrayEquals(bytes("2"), raw().getData().forPath("/" + ns + "/config/k"));
    }

    @Test
    void curatorPassesFullPathsToTheAclProviderExceptForCreatesInsideATransaction() throws Exception {
        List<String> asked = new CopyOnWriteArrayList<>();
        ACLProvider recorder = new ACLProvider() {
            @Override
            public List<ACL> getDefaultAcl() {
                return ZooDefs.Ids.OPEN_ACL_UNSAFE;
            }

            @Override
            public List<ACL> getAclForPath(String path) {
                asked.add(path);
                return ZooDefs.Ids.OPEN_ACL_UNSAFE;
            }
        };
        String ns = "paths" + NAMESPACES.incrementAndGet();
        CuratorFramework c = CuratorFrameworkFactory.builder().connectString(server.getConnectString()).namespace(ns)
                .aclProvider(recorder).retryPolicy(new RetryOneTime(100)).build();
        toClose.add(c);
        c.start();
        c.create().creatingParentsIfNeeded().forPath("/a/b");
        assertEquals(Set.of("/" + ns, "/" + ns + "/a", "/" + ns + "/a/b"), new HashSet<>(asked),
                "namespace node, parent and leaf are asked for with full server paths: " + asked);
        asked.clear();
        c.transaction().forOperations(c.transactionOp().create().forPath("/t"));
        assertEquals(List.of("/t"), asked, "a transaction create is asked for with the namespace-relative path");
    }

    /**
     * Walks the namespace (its node included) and returns one line per node whose ACL differs
     * from what the policy gives its namespace-relative path. Nodes are assumed created by
     * ADMIN unless {@code creators} names another identity for their subtree.
     */
    private static List<String> audit(CuratorFramework auditor, String ns, Map<String, List<Credentials>> creators,
                                      List<String> audited) throws Exception {
        AclPolicy policy = policy();
        List<String> violations = new ArrayList<>();
        for (String path : SecurityFixtures.walk(auditor, "/" + ns)) {
            audited.add(path);
            CoordPath relative = CoordPath.of(path.equals("/" + ns) ? "/" : path.substring(ns.length() + 1));
            List<Credentials> creator = creators.entrySet().stream()
                    .filter(e -> relative.startsWith(CoordPath.of(e.getKey()))).map(Map.Entry::getValue)
                    .findFirst().orElse(List.of(ADMIN));
            Set<ACL> expected = expectedAcl(policy.entriesFor(relative), creator);
            Set<ACL> actual = new HashSet<>(auditor.getACL().forPath(path));
            if (!expected.equals(actual)) {
                violations.add(path + " has " + actual + ", policy says " + expected);
            }
        }
        return violations;
    }

    /** The id of the client's current live session, 0 while it has none. */
    private static long sessionIdOrZero(CoordClient client) {
        try {
            CoordSession s = client.session();
            return s.state() == SessionState.CONNECTED ? s.id() : 0;
        } catch (SessionExpiredException e) {
            return 0;
        }
    }

    /** Real server-side expiry: a second handle on the same session id and password, then closed. */
    private static void expireOnServer(CoordClient client) throws Exception {
        ZooKeeper zk = client.curator().getZookeeperClient().getZooKeeper();
        java.util.concurrent.CountDownLatch connected = new java.util.concurrent.CountDownLatch(1);
        ZooKeeper twin = new ZooKeeper(server.getConnectString(), 3000, e -> {
            if (e.getState() == org.apache.zookeeper.Watcher.Event.KeeperState.SyncConnected) {
                connected.countDown();
            }
        }, zk.getSessionId(), zk.getSessionPasswd());
        try {
            assertTrue(connected.await(10, java.util.concurrent.TimeUnit.SECONDS), "twin handle connected");
        } finally {
            twin.close();
        }
    }
}
