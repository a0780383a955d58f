package io.coord;

import static io.coord.SecurityFixtures.elapsedSince;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Map;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.server.auth.ProviderRegistry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Row 24 of the bad-input table: the server requires SASL ({@code enforce.auth.enabled=true},
 * {@code enforce.auth.schemes=sasl}) and the client has none. The server answers the first request
 * with -124 (SESSIONCLOSEDREQUIRESASLAUTH) and closes the session; Coord must turn that into a
 * terminal {@link AuthenticationException} at connect.
 *
 * <p>ZooKeeper reads these settings, and its auth providers, from JVM-global system properties
 * (zoo.cfg keys become {@code zookeeper.*} properties) and caches the providers in a static
 * registry; the test restores both so no later test runs against an enforcing server.
 */
class SaslRequiredIT {
    private static final Duration LONG_CONNECT = Duration.ofSeconds(15);

    private static SecurityFixtures.SystemPropertiesGuard properties;
    private static TestingServer server;

    @BeforeAll
    static void startEnforcingServer() throws Exception {
        properties = new SecurityFixtures.SystemPropertiesGuard();
        // The registry is filled once per JVM; make it read authProvider.1 from this server's config.
        ProviderRegistry.reset();
        server = SecurityFixtures.plaintextServer(Map.of(
                "authProvider.1", "org.apache.zookeeper.server.auth.SASLAuthenticationProvider",
                "enforce.auth.enabled", "true",
                "enforce.auth.schemes", "sasl"));
    }

    @AfterAll
    static void stopServer() throws Exception {
        try {
            if (server != null) {
                server.close();
            }
        } finally {
            properties.close();
            ProviderRegistry.reset();
        }
    }

    @Test
    void clientWithoutSaslGetsATerminalAuthenticationExceptionNotARetryLoop() {
        long start = System.nanoTime();
        AuthenticationException e = assertThrows(AuthenticationException.class, () -> CoordClient.connect(
                SecurityFixtures.settings(server.getConnectString()).namespace("row24").connectionTimeout(LONG_CONNECT).build()));
        Duration took = elapsedSince(start);
        System.out.println("row 24 SASL required, none given -> AuthenticationException after " + took.toMillis() + " ms: " + e.getMessage());
        assertFalse(e.retryable(), "terminal");
        assertTrue(e.getMessage().contains("-124") && e.getMessage().contains("SESSIONCLOSEDREQUIRESASLAUTH")
                && e.getMessage().contains("anonymous"), e.getMessage());
        // One round trip, not a reconnect loop: the probe is the session's first request (AuthProbe), so it is
        // the request the server answers with -124, whatever Curator sends next.
        assertTrue(took.compareTo(SecurityFixtures.scaled(Duration.ofSeconds(1))) < 0, "an answer of one round trip took " + took);
    }

    @Test
    void everyConnectGetsTheRefusalInOneRoundTrip() {
        // Before AuthProbe, Curator's own first request (its ensemble tracker's) got the -124 about half the
        // time, and the probe only saw the connection go: 0.2 to 4.9 s. Ten connects make that race show.
        for (int i = 0; i < 10; i++) {
            long start = System.nanoTime();
            assertThrows(AuthenticationException.class, () -> CoordClient.connect(
                    SecurityFixtures.settings(server.getConnectString()).namespace("row24c").connectionTimeout(LONG_CONNECT).build()));
            Duration took = elapsedSince(start);
            assertTrue(took.compareTo(SecurityFixtures.scaled(Duration.ofSeconds(1))) < 0, "connect " + i + " took " + took);
        }
    }

    @Test
    void digestCredentialsDoNotSatisfyASaslOnlyServer() throws Exception {
        Credentials digest = Credentials.digest("alice", "alice-pw-0x9");
        AuthenticationException e = assertThrows(AuthenticationException.class, () -> CoordClient.connect(
                SecurityFixtures.settings(server.getConnectString()).namespace("row24b").credentials(digest)
                        .connectionTimeout(LONG_CONNECT).build()));
        assertTrue(e.getMessage().contains("digest:alice") && e.getMessage().contains("-124"), e.getMessage());
        assertFalse(e.getMessage().contains(digest.secret()));
    }
}
