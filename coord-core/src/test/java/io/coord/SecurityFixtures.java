package io.coord;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Id;
import org.apache.zookeeper.server.auth.ProviderRegistry;
import org.apache.zookeeper.server.embedded.ExitHandler;
import org.apache.zookeeper.server.embedded.ZooKeeperServerEmbedded;

/**
 * Shared pieces of the ACL, authentication and TLS tests: real servers with a short tickTime,
 * a raw (non-namespaced) Curator client for audits, the ACL a policy should have produced,
 * stderr capture, a guard that undoes the JVM-global system properties ZooKeeper's server
 * configuration sets, test key material and a test CA made with the JDK's {@code keytool}, a
 * TLS-only server, and the TLS failure contract of the bad-input table.
 */
final class SecurityFixtures {
    /** Sessions from 2 × 200 ms to 20 × 200 ms: short enough for expiry tests. */
    static final int TICK_MS = 200;

    private SecurityFixtures() {
    }

    /** A plaintext server on 127.0.0.1 with a short tickTime and the given extra zoo.cfg properties. */
    static TestingServer plaintextServer(Map<String, Object> extra) throws Exception {
        Map<String, Object> props = new java.util.HashMap<>(extra);
        props.putIfAbsent("admin.enableServer", "false");
        InstanceSpec spec = new InstanceSpec(null, -1, -1, -1, true, -1, TICK_MS, -1, props, "127.0.0.1");
        return new TestingServer(spec, true);
    }

    static TestingServer plaintextServer() throws Exception {
        return plaintextServer(Map.of());
    }

    static CoordSettings.Builder settings(String connectString) {
        // connectionTimeout is left to the test (default 15 s)
        return CoordSettings.builder().connectString(connectString).sessionTimeout(Duration.ofSeconds(3));
    }

    /** A started, non-namespaced Curator client that sees the whole tree, with these credentials. */
    static CuratorFramework rawClient(String connectString, Credentials... credentials) throws InterruptedException {
        CuratorFrameworkFactory.Builder b = CuratorFrameworkFactory.builder().connectString(connectString)
                .sessionTimeoutMs(3000).connectionTimeoutMs(10_000).retryPolicy(new RetryOneTime(100));
        if (credentials.length > 0) {
            // one call: each authorization(...) call replaces the previous list
            b.authorization(java.util.Arrays.stream(credentials)
                    .map(c -> new org.apache.curator.framework.AuthInfo(c.scheme(), c.authBytes())).toList());
        }
        CuratorFramework raw = b.build();
        raw.start();
        if (!raw.blockUntilConnected(10, TimeUnit.SECONDS)) {
            raw.close();
            throw new AssertionError("raw client could not connect to " + connectString);
        }
        return raw;
    }

    /** Every path at and below {@code root}, parents before children. */
    static List<String> walk(CuratorFramework raw, String root) throws Exception {
        List<String> out = new ArrayList<>();
        List<String> todo = new ArrayList<>(List.of(root));
        while (!todo.isEmpty()) {
            String path = todo.remove(0);
            out.add(path);
            for (String child : raw.getChildren().forPath(path)) {
                todo.add(path.equals("/") ? "/" + child : path + "/" + child);
            }
        }
        return out;
    }

    /**
     * The ACL the server stores for a node created under {@code entries} by a client holding
     * {@code creator}: an {@code auth} entry becomes one digest entry per digest identity.
     */
    static Set<ACL> expectedAcl(List<AclEntry> entries, List<Credentials> creator) {
        Set<ACL> out = new HashSet<>();
        for (AclEntry e : entries) {
            if (e.scheme().equals("auth")) {
                for (Credentials c : creator) {
                    if (c.scheme().equals("digest")) {
                        out.add(new ACL(e.perms(), new Id("digest", AclEntry.digestId(c.identity(), c.secret()))));
                    }
                }
            } else {
                out.add(e.toAcl());
            }
        }
        return out;
    }

    static Duration elapsedSince(long startNanos) {
        return Duration.ofNanos(System.nanoTime() - startNanos);
    }

    /** Waits (bounded) until no live thread has {@code name}: whatever a failed connect left closing has finished. */
    static void awaitNoThreadNamed(String name, Duration budget) throws InterruptedException {
        long deadline = System.nanoTime() + budget.toNanos();
        while (Thread.getAllStackTraces().keySet().stream().anyMatch(t -> t.isAlive() && t.getName().equals(name))) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("thread " + name + " still running after " + budget);
            }
            Thread.sleep(20);
        }
    }

    /** Counts non-overlapping occurrences of {@code needle} in {@code text}. */
    static int count(String text, String needle) {
        int n = 0;
        for (int i = text.indexOf(needle); i >= 0; i = text.indexOf(needle, i + needle.length())) {
            n++;
        }
        return n;
    }

    /**
     * Captures everything written to {@code System.err} (where slf4j-simple logs) until closed,
     * while still passing it through.
     */
    static final class StderrCapture implements AutoCloseable {
        private final PrintStream original = System.err;
        private final ByteArrayOutputStream buffer = new ByteArrayOutputStream();

        StderrCapture() {
            PrintStream tee = new PrintStream(new java.io.OutputStream() {
                @Override
                public void write(int b) {
                    synchronized (buffer) {
                        buffer.write(b);
                    }
                    original.write(b);
                }

                @Override
                public void write(byte[] b, int off, int len) {
                    synchronized (buffer) {
                        buffer.write(b, off, len);
                    }
                    original.write(b, off, len);
                }
            }, true, StandardCharsets.UTF_8);
            System.setErr(tee);
        }

        String text() {
            synchronized (buffer) {
                return buffer.toString(StandardCharsets.UTF_8);
            }
        }

        @Override
        public void close() {
            System.err.flush();
            System.setErr(original);
        }
    }

    /**
     * ZooKeeper's server turns unknown zoo.cfg keys (ssl.*, serverCnxnFactory, authProvider.*,
     * enforce.auth.*) into JVM-global {@code zookeeper.*} system properties. This restores the
     * properties as they were, so no other test in the JVM inherits them.
     */
    static final class SystemPropertiesGuard implements AutoCloseable {
        private final Properties before = (Properties) System.getProperties().clone();

        @Override
        public void close() {
            for (String key : System.getProperties().stringPropertyNames()) {
                if (!before.containsKey(key)) {
                    System.clearProperty(key);
                }
            }
            for (String key : before.stringPropertyNames()) {
                if (!before.getProperty(key).equals(System.getProperty(key))) {
                    System.setProperty(key, before.getProperty(key));
                }
            }
        }
    }

    /**
     * A certificate authority for the TLS certificate tests, made with keytool: a truststore
     * that trusts only the CA, and server keystores it signs, each holding the key and the chain
     * (leaf, then CA). The server certificates must not be in the truststore themselves: the
     * JDK checks neither the validity nor anything else of a certificate that is a trust anchor.
     */
    record TestCa(Path dir, Path keyStore, Path trustStore, String password) {

        static TestCa generate(Path dir, String password) throws IOException, InterruptedException {
            Path keyStore = dir.resolve("ca.p12");
            Path trustStore = dir.resolve("ca-trust.p12");
            keytool("-genkeypair", "-alias", "ca", "-keyalg", "EC", "-groupname", "secp256r1", "-validity", "2",
                    "-dname", "CN=Coord Test CA", "-ext", "bc:c", "-keystore", keyStore.toString(), "-storetype", "PKCS12",
                    "-storepass", password, "-keypass", password);
            keytool("-exportcert", "-alias", "ca", "-keystore", keyStore.toString(), "-storepass", password, "-rfc",
                    "-file", dir.resolve("ca.pem").toString());
            keytool("-importcert", "-noprompt", "-alias", "ca", "-file", dir.resolve("ca.pem").toString(),
                    "-keystore", trustStore.toString(), "-storetype", "PKCS12", "-storepass", password);
            return new TestCa(dir, keyStore, trustStore, password);
        }

        /**
         * A PKCS12 keystore (with the CA's password) holding a key for {@code dname} and its
         * certificate signed by this CA for {@code san} (keytool's {@code -ext} syntax, e.g.
         * {@code SAN=dns:localhost}), valid from {@code startDate} (keytool's {@code -startdate}
         * syntax, e.g. {@code -10d}) for {@code validityDays}.
         */
        Path issue(String name, String dname, String san, String startDate, int validityDays) throws IOException, InterruptedException {
            Path serverKeyStore = dir.resolve(name + ".p12");
            Path request = dir.resolve(name + ".csr");
            Path signed = dir.resolve(name + ".pem");
            keytool("-genkeypair", "-alias", "server", "-keyalg", "EC", "-groupname", "secp256r1", "-validity", "2",
                    "-dname", dname, "-keystore", serverKeyStore.toString(), "-storetype", "PKCS12",
                    "-storepass", password, "-keypass", password);
            keytool("-certreq", "-alias", "server", "-keystore", serverKeyStore.toString(), "-storepass", password,
                    "-file", request.toString());
            keytool("-gencert", "-alias", "ca", "-keystore", keyStore.toString(), "-storepass", password,
                    "-infile", request.toString(), "-outfile", signed.toString(), "-rfc", "-ext", san,
                    "-startdate", startDate, "-validity", String.valueOf(validityDays));
            // The CA first, so that keytool can build the chain when the signed certificate replaces the self-signed one.
            keytool("-importcert", "-noprompt", "-alias", "ca", "-file", dir.resolve("ca.pem").toString(),
                    "-keystore", serverKeyStore.toString(), "-storepass", password);
            keytool("-importcert", "-noprompt", "-alias", "server", "-file", signed.toString(),
                    "-keystore", serverKeyStore.toString(), "-storepass", password);
            return serverKeyStore;
        }
    }

    /**
     * A ZooKeeper server that accepts only TLS: a Netty secure client port on 127.0.0.1 and no
     * plaintext port. Its TLS configuration becomes JVM-global {@code zookeeper.*} system
     * properties, which the server reads again for every connection it accepts, so only one such
     * server can run in a JVM at a time, inside a {@link SystemPropertiesGuard}; its x509
     * provider lives in the static {@code ProviderRegistry}, reset here and to be reset after.
     *
     * @param clientAuth {@code need}, {@code want} or {@code none}
     * @param extra      further zoo.cfg properties
     */
    static ZooKeeperServerEmbedded tlsServer(Path dir, Path keyStore, String keyStorePassword, Path trustStore,
                                             String trustStorePassword, String clientAuth, Map<String, String> extra) throws Exception {
        ProviderRegistry.reset();
        Properties p = new Properties();
        p.setProperty("tickTime", "500"); // sessions up to 10 s: a child JVM may run on a loaded machine
        p.setProperty("dataDir", dir.resolve("data").toString());
        p.setProperty("admin.enableServer", "false");
        p.setProperty("secureClientPort", String.valueOf(InstanceSpec.getRandomPort()));
        p.setProperty("secureClientPortAddress", "127.0.0.1");
        p.setProperty("serverCnxnFactory", "org.apache.zookeeper.server.NettyServerCnxnFactory");
        p.setProperty("ssl.keyStore.location", keyStore.toString());
        p.setProperty("ssl.keyStore.password", keyStorePassword);
        p.setProperty("ssl.keyStore.type", "PKCS12");
        p.setProperty("ssl.trustStore.location", trustStore.toString());
        p.setProperty("ssl.trustStore.password", trustStorePassword);
        p.setProperty("ssl.trustStore.type", "PKCS12");
        p.setProperty("ssl.clientAuth", clientAuth);
        p.putAll(extra);
        ZooKeeperServerEmbedded server = ZooKeeperServerEmbedded.builder().baseDir(dir).configuration(p)
                .exitHandler(ExitHandler.LOG_ONLY).build();
        try {
            server.start(TimeUnit.MINUTES.toMillis(1));
        } catch (Exception | Error e) {
            server.close();
            throw e;
        }
        return server;
    }

    /** Deletes {@code dir} and everything below it. */
    static void deleteTree(Path dir) throws IOException {
        if (dir == null || !Files.exists(dir)) {
            return;
        }
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        }
    }

    /**
     * Row 25 of the bad-input table: connecting with {@code settings} fails with a
     * {@link TlsException} that names TLS and the server, is final, and comes within the
     * connection timeout plus {@code margin} (measured from the call to
     * {@link CoordClient#connect}); the half-built client it leaves closing is gone soon after.
     * Prints the time taken and the message.
     */
    static TlsException assertTlsFailure(CoordSettings settings, Duration margin, String what) {
        long start = System.nanoTime();
        TlsException e = assertThrows(TlsException.class, () -> CoordClient.connect(settings).close(),
                what + ": the connect must fail with a TlsException");
        Duration took = elapsedSince(start);
        System.out.println("row 25 " + what + " -> TlsException after " + took.toMillis() + " ms (connection timeout "
                + settings.connectionTimeout().toMillis() + " ms): " + e.getMessage());
        assertTrue(e.getMessage().contains("TLS"), "the message names TLS: " + e.getMessage());
        assertTrue(e.getMessage().contains(settings.connectString()), "the message names the server: " + e.getMessage());
        assertFalse(e.retryable(), "a TLS mismatch is a configuration error");
        Duration bound = settings.connectionTimeout().plus(margin);
        assertTrue(took.compareTo(bound) <= 0, what + ": within the connection timeout " + settings.connectionTimeout()
                + " (plus " + margin + " for a loaded machine): " + took);
        try {
            awaitNoThreadNamed("coord-close-failed-connect", scaled(Duration.ofSeconds(10)));
        } catch (InterruptedException ie) {
            Thread.currentThread().interrupt();
            throw new AssertionError(ie);
        }
        return e;
    }

    /**
     * Connects over TLS with a generous connection timeout and closes, failing if it cannot: the
     * control of a TLS failure test, and its warm-up. A fresh JVM pays for JSSE and for
     * ZooKeeper's Netty TLS path (client and server) at its first handshake, seconds on a loaded
     * 2-core machine; the failure tests bound Coord's deadline handling, not that one-time cost.
     */
    static void assertTlsConnects(String connectString, TlsSettings tls) throws InterruptedException {
        try (CoordClient c = CoordClient.connect(settings(connectString).tls(tls)
                .connectionTimeout(scaled(Duration.ofSeconds(30))).build())) {
            assertTrue(c.session().id() != 0, "TLS connect to " + connectString);
        }
    }

    /**
     * {@code d} stretched by {@code -Dcoord.test.timing} (default 1), as coord-test's
     * {@code Awaits.scaled} does; coord-core's tests cannot use coord-test, which depends on
     * coord-core.
     */
    static Duration scaled(Duration d) {
        String value = System.getProperty("coord.test.timing", "").trim();
        double factor;
        try {
            factor = value.isEmpty() ? 1.0 : Double.parseDouble(value);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("coord.test.timing must be a number >= 0.1, got '" + value + "'", e);
        }
        if (!(factor >= 0.1) || Double.isInfinite(factor)) {
            throw new IllegalArgumentException("coord.test.timing must be a number >= 0.1, got '" + value + "'");
        }
        return Duration.ofNanos((long) (d.toNanos() * factor));
    }

    /**
     * Key material for the TLS tests, made in a temporary directory with the JDK's keytool:
     * a self-signed certificate for CN=localhost with SAN dns:localhost and ip:127.0.0.1 (used by
     * the server and, for mutual TLS, by the client), a truststore that trusts it, and a second
     * self-signed certificate whose truststore trusts only that one (the "wrong truststore").
     */
    record TestCerts(Path dir, Path keyStore, Path trustStore, Path otherTrustStore, String keyStorePassword,
                     String trustStorePassword) {

        static TestCerts generate(Path dir, String keyStorePassword, String trustStorePassword) throws IOException, InterruptedException {
            Path keyStore = dir.resolve("zk.p12");
            Path cert = dir.resolve("zk.pem");
            Path trustStore = dir.resolve("trust.p12");
            Path otherKeyStore = dir.resolve("other.p12");
            Path otherCert = dir.resolve("other.pem");
            Path otherTrustStore = dir.resolve("other-trust.p12");
            genKeyPair(keyStore, keyStorePassword, "CN=localhost", "SAN=dns:localhost,ip:127.0.0.1");
            keytool("-exportcert", "-alias", "zk", "-keystore", keyStore.toString(), "-storepass", keyStorePassword,
                    "-rfc", "-file", cert.toString());
            keytool("-importcert", "-noprompt", "-alias", "zk", "-file", cert.toString(), "-keystore", trustStore.toString(),
                    "-storetype", "PKCS12", "-storepass", trustStorePassword);
            genKeyPair(otherKeyStore, keyStorePassword, "CN=someone-else", "SAN=dns:someone-else.invalid");
            keytool("-exportcert", "-alias", "zk", "-keystore", otherKeyStore.toString(), "-storepass", keyStorePassword,
                    "-rfc", "-file", otherCert.toString());
            keytool("-importcert", "-noprompt", "-alias", "other", "-file", otherCert.toString(), "-keystore",
                    otherTrustStore.toString(), "-storetype", "PKCS12", "-storepass", trustStorePassword);
            return new TestCerts(dir, keyStore, trustStore, otherTrustStore, keyStorePassword, trustStorePassword);
        }

        private static void genKeyPair(Path keyStore, String password, String dname, String san) throws IOException, InterruptedException {
            keytool("-genkeypair", "-alias", "zk", "-keyalg", "EC", "-groupname", "secp256r1", "-validity", "2",
                    "-dname", dname, "-ext", san, "-keystore", keyStore.toString(), "-storetype", "PKCS12",
                    "-storepass", password, "-keypass", password);
        }
    }

    /** Runs the JDK's keytool with {@code args}; fails with its output if it fails. */
    static void keytool(String... args) throws IOException, InterruptedException {
        Path javaHome = Path.of(System.getProperty("java.home"));
        Path keytool = javaHome.resolve("bin").resolve("keytool");
        List<String> command = new ArrayList<>();
        command.add(Files.isExecutable(keytool) ? keytool.toString() : "keytool");
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        try {
            String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                throw new AssertionError("keytool " + args[0] + " did not finish within 60 s");
            }
            if (p.exitValue() != 0) {
                throw new AssertionError("keytool " + args[0] + " failed (" + p.exitValue() + "): " + output);
            }
        } finally {
            p.destroyForcibly();
        }
    }
}
