package io.coord;

import static io.coord.SecurityFixtures.count;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.internal.Zk;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.ZooDefs.Perms;
import org.apache.zookeeper.server.auth.ProviderRegistry;
import org.apache.zookeeper.server.embedded.ZooKeeperServerEmbedded;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Row 25 of the bad-input table and the TLS rows of section 3: a server that accepts only TLS
 * (a Netty secure client port with client certificates required, and no plaintext port),
 * key material made in the test with keytool, TLS settings applied per client through
 * ZKClientConfig, each mismatch failing with a {@link TlsException} that names TLS within the
 * connection timeout, and no secret in any log.
 */
class TlsIT {
    /**
     * Short, as the table asks: a mismatch must be reported within it. Scaled by
     * {@code -Dcoord.test.timing}: on a starved machine the diagnostic probe itself needs longer.
     */
    private static final Duration CONNECT = SecurityFixtures.scaled(Duration.ofSeconds(3));
    /**
     * Margin on that bound for a loaded CI machine (scaled by {@code -Dcoord.test.timing}): the
     * first TLS probe in a cold JVM pays for JSSE start-up (about 0.7 s here idle, several
     * seconds at load 16 on 2 cores).
     */
    private static final Duration LOAD_MARGIN = SecurityFixtures.scaled(Duration.ofSeconds(2));

    private static final String KEYSTORE_PW = "ks-" + UUID.randomUUID();
    private static final String TRUSTSTORE_PW = "ts-" + UUID.randomUUID();

    private static SecurityFixtures.SystemPropertiesGuard properties;
    private static Path dir;
    private static SecurityFixtures.TestCerts certs;
    private static TestingServer plain;
    private static ZooKeeperServerEmbedded tls;
    private static String tlsConnect;

    private final List<AutoCloseable> toClose = new ArrayList<>();

    @BeforeAll
    static void startServers() throws Exception {
        properties = new SecurityFixtures.SystemPropertiesGuard();
        dir = Files.createTempDirectory("coord-tls");
        certs = SecurityFixtures.TestCerts.generate(dir, KEYSTORE_PW, TRUSTSTORE_PW);
        plain = SecurityFixtures.plaintextServer(); // before the TLS server sets zookeeper.serverCnxnFactory globally

        tls = SecurityFixtures.tlsServer(dir, certs.keyStore(), KEYSTORE_PW, certs.trustStore(), TRUSTSTORE_PW, "need",
                Map.of("authProvider.x509", "org.apache.zookeeper.server.auth.X509AuthenticationProvider"));
        tlsConnect = "127.0.0.1:" + tls.getSecureClientPort();
        SecurityFixtures.assertTlsConnects(tlsConnect, mutual()); // warm-up: see there
    }

    @AfterAll
    static void stopServers() throws IOException {
        try {
            if (tls != null) {
                tls.close();
            }
            if (plain != null) {
                plain.close();
            }
        } finally {
            properties.close();
            ProviderRegistry.reset();
            SecurityFixtures.deleteTree(dir);
        }
    }

    @AfterEach
    void closeClients() throws Exception {
        for (int i = toClose.size() - 1; i >= 0; i--) {
            toClose.get(i).close();
        }
        toClose.clear();
    }

    private static TlsSettings mutual() {
        return TlsSettings.mutual(certs.keyStore(), KEYSTORE_PW, certs.trustStore(), TRUSTSTORE_PW);
    }

    private CoordClient connect(CoordSettings settings) throws InterruptedException {
        CoordClient c = CoordClient.connect(settings);
        toClose.add(c);
        return c;
    }

    @Test
    void mutualTlsClientConnectsToATlsOnlyServerAndIsKnownByItsCertificate() throws Exception {
        assertEquals(0, tls.getClientPort(), "the server has no plaintext client port");
        AclPolicy certOnly = AclPolicy.builder().rule("/x509", new AclEntry("x509", "CN=localhost", Perms.ALL)).build();
        CoordClient c = connect(SecurityFixtures.settings(tlsConnect).namespace("tls").tls(mutual()).aclPolicy(certOnly)
                .connectionTimeout(CONNECT).build());

        Zk.of(c).call(CoordPath.of("/x509/k"), () -> c.curator().create().creatingParentsIfNeeded()
                .forPath("/x509/k", "v".getBytes(StandardCharsets.UTF_8)));
        assertArrayEquals("v".getBytes(StandardCharsets.UTF_8),
                Zk.of(c).call(CoordPath.of("/x509/k"), () -> c.curator().getData().forPath("/x509/k")),
                "the node only x509:CN=localhost may read was read: the server knows this client by its certificate");
        assertNull(System.getProperty("zookeeper.client.secure"), "TLS was configured per client, not JVM-wide");
        assertNull(System.getProperty("zookeeper.clientCnxnSocket"), "TLS was configured per client, not JVM-wide");
    }

    @Test
    void aPlaintextClientAndATlsClientWorkSideBySideInOneJvm() throws Exception {
        CoordClient secure = connect(SecurityFixtures.settings(tlsConnect).namespace("side").tls(mutual()).build());
        CoordClient clear = connect(SecurityFixtures.settings(plain.getConnectString()).namespace("side").build());
        Zk.of(secure).call(CoordPath.of("/a"), () -> secure.curator().create().forPath("/a"));
        Zk.of(clear).call(CoordPath.of("/a"), () -> clear.curator().create().forPath("/a"));
        assertTrue(secure.session().id() != 0 && clear.session().id() != 0);
    }

    @Test
    void plaintextClientToTheTlsPortFailsWithTlsExceptionWithinTheConnectionTimeout() {
        TlsException e = assertTlsFailure(SecurityFixtures.settings(tlsConnect).connectionTimeout(CONNECT).build(), "plaintext -> TLS port");
        assertTrue(e.getMessage().contains("speaks TLS") && e.getMessage().contains("plaintext"), e.getMessage());
    }

    @Test
    void tlsClientToAPlaintextPortFailsWithTlsExceptionWithinTheConnectionTimeout() {
        TlsException e = assertTlsFailure(SecurityFixtures.settings(plain.getConnectString()).tls(mutual())
                .connectionTimeout(CONNECT).build(), "TLS -> plaintext port");
        assertTrue(e.getMessage().contains("does not speak TLS"), e.getMessage());
        assertTrue(e.getCause() instanceof IOException, "the handshake failure is the cause: " + e.getCause());
    }

    @Test
    void tlsClientWithAWrongTruststoreFailsWithTlsExceptionNamingTheCertificateProblem() {
        TlsSettings wrongTrust = TlsSettings.mutual(certs.keyStore(), KEYSTORE_PW, certs.otherTrustStore(), TRUSTSTORE_PW);
        TlsException e = assertTlsFailure(SecurityFixtures.settings(tlsConnect).tls(wrongTrust).connectionTimeout(CONNECT).build(),
                "wrong truststore");
        assertTrue(e.getMessage().contains("not trusted"), e.getMessage());
        assertTrue(e.getCause() instanceof javax.net.ssl.SSLException, "the handshake failure is the cause: " + e.getCause());
    }

    @Test
    void tlsClientWithoutACertificateIsRefusedByAServerThatRequiresOne() {
        TlsSettings trustOnly = TlsSettings.trustOnly(certs.trustStore(), TRUSTSTORE_PW);
        TlsException e = assertTlsFailure(SecurityFixtures.settings(tlsConnect).tls(trustOnly).connectionTimeout(CONNECT).build(),
                "no client certificate");
        assertTrue(e.getMessage().contains("certificate"), e.getMessage());
    }

    /** {@link CoordClient#start} does not throw: the same TLS mismatch is kept in {@code startFailure()} once the probe sees it. */
    @Test
    void startedPlaintextClientToTheTlsPortReportsTlsExceptionAsItsStartFailure() throws Exception {
        CoordClient client = CoordClient.start(SecurityFixtures.settings(tlsConnect).connectionTimeout(CONNECT).build());
        toClose.add(client);
        long deadline = System.nanoTime() + CONNECT.plus(LOAD_MARGIN).multipliedBy(2).toNanos();
        while (client.startFailure().isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertTrue(client.startFailure().orElse(null) instanceof TlsException, "start failure: " + client.startFailure());
        assertTrue(client.startFailure().get().getMessage().contains("speaks TLS"), client.startFailure().get().getMessage());
    }

    private static TlsException assertTlsFailure(CoordSettings settings, String what) {
        return SecurityFixtures.assertTlsFailure(settings, LOAD_MARGIN, what);
    }

    /**
     * CVE-2026-24308: ZooKeeper clients up to 3.9.4 logged their configuration, secrets included.
     * A child JVM logs everything at DEBUG (this JVM's log level is whatever the test setup chose,
     * and loggers created earlier keep their level) while it connects with digest credentials and
     * mutual TLS, fails three ways, and prints the settings; no secret may appear in its output or
     * in this JVM's (the servers') output.
     */
    @Test
    void noSecretAppearsInAnyLogLineEvenAtDebug() throws Exception {
        String digestPw = "dg-" + UUID.randomUUID();
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", testClassPath(),
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=debug",
                "-Djava.net.preferIPv4Stack=true",
                SecretLogProbe.class.getName(),
                tlsConnect, plain.getConnectString(), certs.keyStore().toString(), KEYSTORE_PW,
                certs.trustStore().toString(), TRUSTSTORE_PW, certs.otherTrustStore().toString(), digestPw));
        String childOutput;
        String serverOutput;
        int exit;
        try (SecurityFixtures.StderrCapture capture = new SecurityFixtures.StderrCapture()) {
            Process child = new ProcessBuilder(command).redirectErrorStream(true).start();
            try {
                childOutput = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                assertTrue(child.waitFor(120, TimeUnit.SECONDS), "the probe JVM finished");
                exit = child.exitValue();
            } finally {
                child.destroyForcibly();
            }
            serverOutput = capture.text();
        }
        assertEquals(0, exit, "probe JVM failed:\n" + childOutput);
        assertTrue(childOutput.contains(SecretLogProbe.DONE), "the probe ran to the end:\n" + childOutput);
        assertTrue(childOutput.contains("DEBUG org.apache.zookeeper"), "ZooKeeper really logged at DEBUG");
        assertTrue(childOutput.contains("TlsException") && childOutput.contains("NotAuthorizedException")
                && childOutput.contains("in clear text"), "the failure paths and the warning were exercised:\n" + childOutput);
        for (String secret : List.of(digestPw, KEYSTORE_PW, TRUSTSTORE_PW)) {
            assertEquals(0, count(childOutput, secret), "secret in the client's output:\n" + excerpt(childOutput, secret));
            assertEquals(0, count(serverOutput, secret), "secret in the server's output:\n" + excerpt(serverOutput, secret));
        }
    }

    private static String testClassPath() {
        String surefire = System.getProperty("surefire.test.class.path");
        return surefire != null && !surefire.isBlank() ? surefire : System.getProperty("java.class.path");
    }

    private static String excerpt(String text, String secret) {
        int i = text.indexOf(secret);
        return i < 0 ? "" : text.substring(Math.max(0, i - 400), Math.min(text.length(), i + 100));
    }
}
