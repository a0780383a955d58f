package io.coord;

import static io.coord.SecurityFixtures.count;
import static io.coord.SecurityFixtures.elapsedSince;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.internal.Zk;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooDefs.Perms;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Id;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * Rows 18–23 of the bad-input table (RELIABILITY.md (c)): wrong digest password, unknown auth
 * scheme, and malformed ACLs, each with its documented error and no server-side side effect;
 * plus the warning that digest without TLS sends the password in clear.
 */
class AuthBadInputIT {
    private static final AtomicInteger NAMESPACES = new AtomicInteger();
    private static final Credentials ADMIN = Credentials.digest("config-admin", "right-pw-93kd");
    private static final Credentials WRONG = Credentials.digest("config-admin", "wrong-pw-2jfh");
    /** A connection timeout long enough that "failed before it" clearly means "did not wait for it". */
    private static final Duration LONG_CONNECT = Duration.ofSeconds(15);
    /** How soon a bad input must be refused (RELIABILITY.md (c)), before {@code -Dcoord.test.timing}. */
    private static final Duration BOUND = Duration.ofSeconds(1);

    private static TestingServer server;
    private final List<AutoCloseable> toClose = new ArrayList<>();

    @BeforeAll
    static void startServer() throws Exception {
        server = SecurityFixtures.plaintextServer();
        // One connect first, so the rows that time a connect measure the refusal, not the JVM
        // loading the ZooKeeper client classes.
        SecurityFixtures.rawClient(server.getConnectString()).close();
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

    private static AclPolicy adminOnlySecret() {
        return AclPolicy.builder()
                .rule("/secret", AclEntry.digest(ADMIN.identity(), ADMIN.secret(), Perms.ALL))
                .rule("/config", AclEntry.anyone(Perms.READ), AclEntry.digest(ADMIN.identity(), ADMIN.secret(), Perms.ALL))
                .build();
    }

    private CoordSettings.Builder settings(String ns) {
        return SecurityFixtures.settings(server.getConnectString()).namespace(ns).aclPolicy(adminOnlySecret());
    }

    private CoordClient connect(CoordSettings settings) throws InterruptedException {
        CoordClient c = CoordClient.connect(settings);
        toClose.add(c);
        return c;
    }

    private CuratorFramework raw(Credentials... credentials) throws InterruptedException {
        CuratorFramework raw = SecurityFixtures.rawClient(server.getConnectString(), credentials);
        toClose.add(raw);
        return raw;
    }

    /** The admin creates /secret/canary (admin only) and /config/k (everyone reads) in {@code ns}. */
    private void seed(String ns) throws Exception {
        CoordClient admin = connect(settings(ns).credentials(ADMIN).build());
        Zk.of(admin).call(CoordPath.of("/secret/canary"),
                () -> admin.curator().create().creatingParentsIfNeeded().forPath("/secret/canary", new byte[] {1}));
        Zk.of(admin).call(CoordPath.of("/config/k"),
                () -> admin.curator().create().creatingParentsIfNeeded().forPath("/config/k", new byte[] {1}));
    }

    // Row 18 -----------------------------------------------------------------------------------

    @Test
    void wrongDigestPasswordConnectsButEveryProtectedOperationFailsNamingIdentityAndPath() throws Exception {
        String ns = "row18a" + NAMESPACES.incrementAndGet();
        seed(ns);
        CoordClient wrong = connect(settings(ns).credentials(WRONG).build());
        List<String> before = SecurityFixtures.walk(raw(ADMIN), "/" + ns);

        long start = System.nanoTime();
        NotAuthorizedException read = assertThrows(NotAuthorizedException.class, () -> Zk.of(wrong)
                .call(CoordPath.of("/secret/canary"), () -> wrong.curator().getData().forPath("/secret/canary")));
        assertFast("row 18 read with a wrong password", read, start);
        assertTrue(read.getMessage().contains("/secret/canary") && read.getMessage().contains("digest:config-admin"),
                "names the path and the identity: " + read.getMessage());
        start = System.nanoTime();
        NotAuthorizedException write = assertThrows(NotAuthorizedException.class, () -> Zk.of(wrong)
                .call(CoordPath.of("/config/k"), () -> wrong.curator().setData().forPath("/config/k", new byte[] {2})));
        assertFast("row 18 write with a wrong password", write, start);
        assertTrue(write.getMessage().contains("/config/k") && write.getMessage().contains("digest:config-admin"), write.getMessage());
        assertFalse(read.getMessage().contains(WRONG.secret()) || write.getMessage().contains(WRONG.secret()),
                "the password is never in an error");
        assertEquals(1, raw(ADMIN).getData().forPath("/" + ns + "/config/k")[0], "the refused write changed nothing");
        assertEquals(before, SecurityFixtures.walk(raw(ADMIN), "/" + ns), "no node was created or removed");
    }

    @Test
    void wrongDigestPasswordWithAnAuthCheckPathFailsTheConnectItself() throws Exception {
        String ns = "row18b" + NAMESPACES.incrementAndGet();
        seed(ns);
        long start = System.nanoTime();
        NotAuthorizedException e = assertThrows(NotAuthorizedException.class, () -> connect(settings(ns).credentials(WRONG)
                .authCheckPath(CoordPath.of("/secret/canary")).connectionTimeout(LONG_CONNECT).build()));
        Duration took = elapsedSince(start);
        assertTrue(e.getMessage().contains("/secret/canary") && e.getMessage().contains("digest:config-admin")
                && e.getMessage().contains("auth check"), e.getMessage());
        System.out.println("row 18 wrong password + authCheckPath -> NotAuthorizedException after " + took.toMillis() + " ms");
        assertFalse(e.retryable(), "a refused auth check is final");
        assertTrue(took.compareTo(BadInputIT.scaled(BOUND)) < 0, "failed within " + BadInputIT.scaled(BOUND)
                + ", not at the connection timeout: " + took);
        List<String> seeded = SecurityFixtures.walk(raw(ADMIN), "/" + ns);

        // Control: the right password passes the same check.
        connect(settings(ns).credentials(ADMIN).authCheckPath(CoordPath.of("/secret/canary")).build());
        assertEquals(seeded, SecurityFixtures.walk(raw(ADMIN), "/" + ns), "the refused client created nothing");
    }

    @Test
    void anAuthCheckPathThatDoesNotExistIsAConfigurationError() throws Exception {
        String ns = "row18c" + NAMESPACES.incrementAndGet();
        long start = System.nanoTime();
        ConfigurationException e = assertThrows(ConfigurationException.class, () -> connect(settings(ns).credentials(ADMIN)
                .authCheckPath(CoordPath.of("/no/such/canary")).build()));
        assertFast("row 18 missing authCheckPath", e, start);
        assertTrue(e.getMessage().contains("/no/such/canary"), e.getMessage());
        assertNull(raw().checkExists().forPath("/" + ns + "/no"), "nothing was created");
    }

    // Row 19 -----------------------------------------------------------------------------------

    @Test
    void unknownAuthSchemeFailsConnectWithATerminalAuthenticationExceptionLongBeforeTheTimeout() throws Exception {
        Credentials unknown = new Credentials("nosuchscheme", "bob", "bob-secret-8c1d");
        long start = System.nanoTime();
        AuthenticationException e = assertThrows(AuthenticationException.class,
                () -> connect(settings("row19").credentials(unknown).connectionTimeout(LONG_CONNECT).build()));
        Duration took = elapsedSince(start);
        System.out.println("row 19 unknown auth scheme -> AuthenticationException after " + took.toMillis() + " ms");
        assertFalse(e.retryable(), "terminal");
        assertTrue(e.getMessage().contains("AUTHFAILED") && e.getMessage().contains("nosuchscheme:bob")
                && e.getMessage().contains(server.getConnectString()), e.getMessage());
        assertFalse(e.getMessage().contains(unknown.secret()), "the secret is never in an error");
        assertTrue(took.compareTo(BadInputIT.scaled(BOUND)) < 0, "refused within " + BadInputIT.scaled(BOUND)
                + ", not at the connection timeout: " + took);
        assertNull(raw().checkExists().forPath("/row19"), "nothing was created");
    }

    // Rows 20, 21, 23: malformed ACL entries never get as far as a policy ----------------------

    @Test
    void plaintextDigestIdIsRefusedClientSideWithoutEchoingThePassword() {
        InvalidAclException e = assertNothingSent(() -> AclEntry.digestHashed("alice:alice-plain-pw", Perms.ALL));
        assertTrue(e.getMessage().contains("\"alice\"") && e.getMessage().contains("user:base64(sha1(user:password))"),
                e.getMessage());
        assertFalse(e.getMessage().contains("alice-plain-pw"), "the plaintext password is not echoed: " + e.getMessage());
        assertNothingSent(() -> new AclEntry("digest", "alice:alice-plain-pw", Perms.ALL));
        assertNothingSent(() -> AclEntry.fromAcl(new ACL(Perms.ALL, new Id("digest", "alice:alice-plain-pw"))));
    }

    @Test
    void digestIdWithoutAColonIsRefusedClientSide() {
        InvalidAclException e = assertNothingSent(() -> AclEntry.digestHashed("alicehash", Perms.ALL));
        assertTrue(e.getMessage().contains("':'") && e.getMessage().contains("user:base64(sha1(user:password))"), e.getMessage());
    }

    @Test
    void unknownAclSchemeIsRefusedClientSideNamingTheScheme() {
        InvalidAclException e = assertNothingSent(() -> new AclEntry("kerberos", "alice", Perms.ALL));
        assertTrue(e.getMessage().contains("\"kerberos\"") && e.getMessage().contains("digest"), e.getMessage());
        assertNothingSent(() -> AclEntry.fromAcl(new ACL(Perms.ALL, new Id("kerberos", "alice"))));
    }

    // Row 22 -----------------------------------------------------------------------------------

    @Test
    void creatorAclWithoutAnAuthenticatedIdentityIsRefusedWhenTheSettingsAreBuilt() throws Exception {
        AclEntry creator = AclEntry.fromAcl(ZooDefs.Ids.CREATOR_ALL_ACL.get(0));
        assertEquals(AclEntry.creator(Perms.ALL), creator, "ZooKeeper's CREATOR_ALL_ACL is Coord's creator entry");
        for (AclPolicy policy : List.of(AclPolicy.builder().defaultAcl(creator).build(),
                AclPolicy.builder().rule("/mine", AclEntry.creator(Perms.READ)).build())) {
            long start = System.nanoTime();
            InvalidAclException e = assertThrows(InvalidAclException.class, () -> SecurityFixtures
                    .settings(server.getConnectString()).namespace("row22").aclPolicy(policy).build());
            assertFast("row 22 creator ACL without identity", e, start);
            assertTrue(e.getMessage().contains("no authenticated identity") && e.getMessage().contains("creator"), e.getMessage());
        }
        assertNull(raw().checkExists().forPath("/row22"), "no client was made, nothing was created");
    }

    /** Checks that {@code e} is final and came within 1 s (scaled) of {@code startNanos}. */
    private static void assertFast(String row, CoordException e, long startNanos) {
        Duration took = elapsedSince(startNanos);
        System.out.println(row + " -> " + e.getClass().getSimpleName() + " in " + took.toMillis() + " ms: " + e.getMessage());
        assertFalse(e.retryable(), row + ": a bad input is final, never retried");
        Duration bound = BadInputIT.scaled(BOUND);
        assertTrue(took.compareTo(bound) < 0, row + ": refused within " + bound + ", took " + took);
    }

    /** Runs {@code bad}, which must throw InvalidAclException, and checks the server's tree did not change. */
    private InvalidAclException assertNothingSent(Executable bad) {
        try {
            List<String> before = SecurityFixtures.walk(raw(ADMIN), "/");
            long start = System.nanoTime();
            InvalidAclException e = assertThrows(InvalidAclException.class, bad);
            assertFast("rows 20-23 malformed ACL", e, start);
            assertEquals(before, SecurityFixtures.walk(raw(ADMIN), "/"), "no node was created or removed");
            return e;
        } catch (AssertionError e) {
            throw e;
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    // Digest over plaintext ----------------------------------------------------------------------

    @Test
    void digestWithoutTlsWarnsOnceThatThePasswordTravelsInClear() throws Exception {
        String ns = "clear" + NAMESPACES.incrementAndGet();
        String withDigest;
        String withoutDigest;
        try (SecurityFixtures.StderrCapture capture = new SecurityFixtures.StderrCapture()) {
            CoordClient c = connect(settings(ns).credentials(ADMIN).build());
            Zk.of(c).call(CoordPath.of("/a"), () -> c.curator().create().forPath("/a"));
            Zk.of(c).call(CoordPath.of("/a"), () -> c.curator().getData().forPath("/a"));
            withDigest = capture.text();
        }
        try (SecurityFixtures.StderrCapture capture = new SecurityFixtures.StderrCapture()) {
            connect(settings(ns).build());
            withoutDigest = capture.text();
        }
        assertEquals(1, count(withDigest, "in clear text"), "one warning for the client with digest credentials:\n" + withDigest);
        assertTrue(withDigest.contains("digest:config-admin") && withDigest.contains("WARN"), withDigest);
        assertFalse(withDigest.contains(ADMIN.secret()), "the warning does not show the password");
        assertEquals(0, count(withoutDigest, "in clear text"), "no warning without digest credentials");
    }
}
