package io.coord;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import org.apache.zookeeper.server.auth.ProviderRegistry;
import org.apache.zookeeper.server.embedded.ZooKeeperServerEmbedded;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Row 25 of the bad-input table, the certificate cases: a server whose certificate is for
 * another host, and one whose certificate has expired, each fail the connect within the
 * connection timeout with a {@link TlsException} that says which it is. The certificates come
 * from a CA made in the test with keytool and the client trusts only the CA, as in production
 * (a certificate that is itself in the truststore would be a trust anchor, which the JDK
 * checks for neither). Each case runs its own TLS-only server, one at a time (their TLS
 * settings are JVM-global); controls show that only the one flaw is wrong: a current certificate
 * for the right host from the same CA connects, and so does the wrong-host one once hostname
 * verification is off.
 */
class TlsCertificateIT {
    /**
     * Short, as the table asks: the failure must come within it. Scaled by
     * {@code -Dcoord.test.timing}: on a starved machine the diagnostic probe itself needs longer.
     */
    private static final Duration CONNECT = SecurityFixtures.scaled(Duration.ofSeconds(3));
    /** Margin on that bound for a loaded machine: the first probe in a cold JVM pays for JSSE start-up. */
    private static final Duration LOAD_MARGIN = SecurityFixtures.scaled(Duration.ofSeconds(2));
    private static final String PASSWORD = "ca-" + UUID.randomUUID();

    private static Path dir;
    private static SecurityFixtures.TestCa ca;
    private static Path goodKeyStore;
    private static Path wrongHostKeyStore;
    private static Path expiredKeyStore;

    @BeforeAll
    static void makeCertificates() throws Exception {
        dir = Files.createTempDirectory("coord-tls-cert");
        ca = SecurityFixtures.TestCa.generate(dir, PASSWORD);
        goodKeyStore = ca.issue("good", "CN=localhost", "SAN=dns:localhost,ip:127.0.0.1", "-1d", 3);
        wrongHostKeyStore = ca.issue("wrong-host", "CN=wrong.example", "SAN=dns:wrong.example", "-1d", 3);
        // Valid for one day, ten days ago: expired nine days ago.
        expiredKeyStore = ca.issue("expired", "CN=localhost", "SAN=dns:localhost,ip:127.0.0.1", "-10d", 1);
        // The control for both cases (a current certificate for the right host from the same CA
        // connects), and the warm-up of this JVM's TLS path (see assertTlsConnects).
        try (TlsServer server = new TlsServer(goodKeyStore)) {
            SecurityFixtures.assertTlsConnects("127.0.0.1:" + server.port(), trust());
        }
    }

    @AfterAll
    static void deleteCertificates() throws Exception {
        SecurityFixtures.deleteTree(dir);
    }

    private static TlsSettings trust() {
        return TlsSettings.trustOnly(ca.trustStore(), PASSWORD);
    }

    /** A client that trusts the CA, with hostname verification, and the short connection timeout under test. */
    private static CoordSettings client(String connectString) {
        return SecurityFixtures.settings(connectString).connectionTimeout(CONNECT).tls(trust()).build();
    }

    @Test
    void aServerCertificateForAnotherHostFailsWithTlsExceptionNamingTheHostName() throws Exception {
        try (TlsServer server = new TlsServer(wrongHostKeyStore)) {
            for (String host : new String[] {"127.0.0.1", "localhost"}) {
                String connect = host + ":" + server.port();
                TlsException e = SecurityFixtures.assertTlsFailure(client(connect), LOAD_MARGIN, "hostname mismatch via " + host);
                String msg = e.getMessage();
                assertTrue(msg.contains("host name") && msg.contains("does not match"), "the message says the host name does not match: " + msg);
                assertTrue(msg.contains("'" + host + "'"), "the message names the host connected to: " + msg);
                assertTrue(e.getCause() instanceof javax.net.ssl.SSLException, "the handshake failure is the cause: " + e.getCause());
            }
            // Whom the certificate is for takes a second look, which Coord takes only while the
            // connection timeout allows; with a generous one it must be there.
            TlsException e = SecurityFixtures.assertTlsFailure(client("127.0.0.1:" + server.port()).toBuilder()
                    .connectionTimeout(SecurityFixtures.scaled(Duration.ofSeconds(20))).build(), LOAD_MARGIN, "hostname mismatch, names");
            assertTrue(e.getMessage().contains("the server's certificate is for CN=wrong.example with subject alternative names"
                    + " dns:wrong.example"), "the message names whom the certificate is for: " + e.getMessage());
            // Control: the same certificate and trust, hostname verification off, connects; only the name was wrong.
            SecurityFixtures.assertTlsConnects("127.0.0.1:" + server.port(), trust().withoutHostnameVerification());
        }
    }

    @Test
    void anExpiredServerCertificateFailsWithTlsExceptionSayingItExpired() throws Exception {
        try (TlsServer server = new TlsServer(expiredKeyStore)) {
            String connect = "127.0.0.1:" + server.port();
            TlsException e = SecurityFixtures.assertTlsFailure(client(connect), LOAD_MARGIN, "expired certificate");
            String msg = e.getMessage();
            assertTrue(msg.contains("expired"), "the message says the certificate expired: " + msg);
            assertTrue(msg.contains("CN=localhost"), "the message names the certificate's subject: " + msg);
            assertTrue(e.getCause() instanceof javax.net.ssl.SSLException, "the handshake failure is the cause: " + e.getCause());
        }
    }

    /** One TLS-only server (client certificates not asked for) and the JVM-global settings it made, undone on close. */
    private static final class TlsServer implements AutoCloseable {
        private final SecurityFixtures.SystemPropertiesGuard properties = new SecurityFixtures.SystemPropertiesGuard();
        private final Path baseDir;
        private final ZooKeeperServerEmbedded server;

        TlsServer(Path keyStore) throws Exception {
            baseDir = Files.createTempDirectory(dir, "server");
            try {
                server = SecurityFixtures.tlsServer(baseDir, keyStore, PASSWORD, ca.trustStore(), PASSWORD, "none", Map.of());
            } catch (Exception | Error e) {
                undoGlobals();
                throw e;
            }
        }

        int port() {
            return server.getSecureClientPort();
        }

        private void undoGlobals() {
            properties.close();
            ProviderRegistry.reset();
        }

        @Override
        public void close() throws Exception {
            try {
                server.close();
            } finally {
                undoGlobals();
                SecurityFixtures.deleteTree(baseDir);
            }
        }
    }
}
