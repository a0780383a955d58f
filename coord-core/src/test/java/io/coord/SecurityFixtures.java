package io.coord;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Id;

/**
 * Shared pieces of the ACL, authentication and TLS tests: real servers with a short tickTime,
 * a raw (non-namespaced) Curator client for audits, the ACL a policy should have produced,
 * stderr capture, a guard that undoes the JVM-global system properties ZooKeeper's server
 * configuration sets, and test key material made with the JDK's {@code keytool}.
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

        private static void keytool(String... args) throws IOException, InterruptedException {
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
}
