package io.coord.chaos;

import io.coord.AclPolicy;
import io.coord.CoordClient;
import io.coord.CoordPath;
import io.coord.CoordSettings;
import io.coord.InvalidPathException;
import io.coord.test.ForkedEnsemble;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.ACL;

/**
 * The suite's closing audit (RELIABILITY.md matrix, "Connection and ACL layer"): after every
 * scenario, walks the whole tree the recipes created and checks each node's ACL against the
 * policy the chaos clients connect with ({@link ChaosAcl#POLICY}), and searches every log the
 * suite wrote for the test secret. Printed as
 * {@code CHAOS acl-audit nodes=N outside-policy=N secret-hits=N}; the run fails on any.
 *
 * <p>What is walked: every node below the root except ZooKeeper's own ({@code /} and
 * {@code /zookeeper/**}, which the server creates with an open ACL). A top-level node is a
 * scenario's namespace (a client's chroot), so a node's policy path is its path below the top
 * level, as {@link AclPolicy} prefixes are namespace-relative; a namespace node gets the root's ACL.
 *
 * <p>What is searched: the controller's log file (slf4j-simple's {@code logFile}, when it is a
 * file), the log of every ZooKeeper member running at the end, and the log of every worker JVM,
 * scanned by {@link WorkerLink#close()} just before the harness deletes it ({@link #scanWorkerLog}).
 */
public final class AclAudit {
    /** ZooKeeper's own nodes: the root and its system subtree, created by the server itself. */
    private static final String ZOOKEEPER_OWN = "/zookeeper";
    /** Worker logs scanned since the last audit, with their hits ("worker line n"), drained by {@link #run}. */
    private static final List<String> WORKER_LOGS = new CopyOnWriteArrayList<>();
    private static final List<String> WORKER_HITS = new CopyOnWriteArrayList<>();

    /** A node whose ACL is not the one the policy gives its path. */
    public record Outside(String path, List<ACL> actual, List<ACL> expected) {
        @Override
        public String toString() {
            return path + " has " + actual + ", policy " + expected;
        }
    }

    /** What the audit found. {@code secretHits} name a file and line, never the secret. */
    public record Report(long nodes, List<Outside> outside, int logsScanned, List<String> secretHits) {
        public boolean passed() {
            return outside.isEmpty() && secretHits.isEmpty();
        }

        public String line() {
            return "CHAOS acl-audit nodes=" + nodes + " outside-policy=" + outside.size() + " secret-hits=" + secretHits.size();
        }

        /** As a result line of its own, so the IT and the CLI fail on it like on a scenario. */
        ChaosResult toResult() {
            Map<String, Object> d = new LinkedHashMap<>();
            d.put("nodes", nodes);
            d.put("outside-policy", outside.size());
            d.put("logs-scanned", logsScanned);
            d.put("secret-hits", secretHits.size());
            outside.stream().limit(5).forEach(o -> d.put("outside:" + o.path(), o.actual()));
            secretHits.stream().limit(5).forEach(h -> d.put("hit:" + h.replace(' ', '_'), "secret"));
            // not a throughput run: no fault schedule, and no floor to keep (the progress is a formality)
            return new ChaosResult("acl-audit", false, nodes, 0, 0, outside.size() + secretHits.size(), 0, 0,
                    new Progress(1, 1), d);
        }
    }

    private AclAudit() {
    }

    /**
     * Audits the tree of {@code ensemble} against {@link ChaosAcl#POLICY} and every log of the run
     * against {@link ChaosAcl#SECRET}; prints the {@code CHAOS acl-audit} line (and what it found).
     */
    static ChaosResult run(ForkedEnsemble ensemble, PrintWriter out) throws InterruptedException {
        Report r;
        try {
            r = audit(ensemble);
        } catch (RuntimeException e) {
            ChaosResult failed = ChaosResult.error("acl-audit", e);
            out.println(failed.line());
            out.println(failed.detailLine());
            return failed;
        }
        out.println(r.line());
        r.outside().stream().limit(20).forEach(o -> out.println("CHAOS-NOTE acl-audit outside the policy: " + o));
        r.secretHits().stream().limit(20).forEach(h -> out.println("CHAOS-NOTE acl-audit the test secret is in " + h));
        return r.toResult();
    }

    private static Report audit(ForkedEnsemble ensemble) throws InterruptedException {
        try (CoordClient client = CoordClient.connect(ChaosAcl.secured(CoordSettings.builder()).connectString(ensemble.connectString())
                .sessionTimeout(Duration.ofSeconds(10)).connectionTimeout(Duration.ofSeconds(30)).build())) {
            long[] nodes = {0};
            List<Outside> outside = walk(client.curator(), ChaosAcl.POLICY, nodes);
            List<Path> logs = new ArrayList<>();
            controllerLog().ifPresent(logs::add);
            for (int i = 0; i < ensemble.size(); i++) {
                if (ensemble.process(i) != null) {
                    logs.add(ensemble.process(i).stderr());
                }
            }
            List<String> hits = new ArrayList<>();
            for (Path log : logs) {
                hits.addAll(secretHits(log, ChaosAcl.SECRET));
            }
            int scanned = logs.size();
            synchronized (WORKER_LOGS) {
                scanned += WORKER_LOGS.size();
                hits.addAll(WORKER_HITS);
                WORKER_LOGS.clear();
                WORKER_HITS.clear();
            }
            return new Report(nodes[0], outside, scanned, hits);
        }
    }

    /**
     * Every node below the root but ZooKeeper's own whose ACL differs from {@code policy}'s for its
     * namespace-relative path; counts the nodes walked into {@code count[0]}. Nodes that vanish
     * during the walk (ephemerals, containers the server reaps) are skipped.
     */
    static List<Outside> walk(CuratorFramework curator, AclPolicy policy, long[] count) throws InterruptedException {
        List<Outside> outside = new ArrayList<>();
        Deque<String> todo = new ArrayDeque<>(children(curator, "/").stream().map(c -> "/" + c).toList());
        while (!todo.isEmpty()) {
            String path = todo.pop();
            if (path.equals(ZOOKEEPER_OWN) || path.startsWith(ZOOKEEPER_OWN + "/")) {
                continue;
            }
            List<ACL> actual;
            try {
                actual = curator.getACL().forPath(path);
            } catch (KeeperException.NoNodeException e) {
                continue;
            } catch (InterruptedException e) {
                throw e;
            } catch (Exception e) {
                throw new IllegalStateException("ACL audit could not read the ACL of " + path, e);
            }
            count[0]++;
            List<ACL> expected = expected(policy, path);
            if (!new HashSet<>(actual).equals(new HashSet<>(expected)) || actual.size() != expected.size()) {
                outside.add(new Outside(path, actual, expected));
            }
            for (String c : children(curator, path)) {
                todo.push(path + "/" + c);
            }
        }
        return outside;
    }

    /** The policy's ACL for server path {@code path}: its first segment is the namespace. */
    static List<ACL> expected(AclPolicy policy, String path) {
        int second = path.indexOf('/', 1);
        if (second < 0) {
            return policy.aclFor(CoordPath.ROOT);
        }
        try {
            return policy.aclFor(CoordPath.of(path.substring(second)));
        } catch (InvalidPathException e) {
            return policy.aclFor(CoordPath.ROOT); // as PolicyAclProvider does for a path it cannot parse
        }
    }

    private static List<String> children(CuratorFramework curator, String path) throws InterruptedException {
        try {
            return curator.getChildren().forPath(path);
        } catch (KeeperException.NoNodeException e) {
            return List.of();
        } catch (InterruptedException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException("ACL audit could not list " + path, e);
        }
    }

    /** The lines of {@code log} that contain {@code secret}, as {@code "<file> line <n>"}; none if the file is gone. */
    static List<String> secretHits(Path log, String secret) {
        List<String> hits = new ArrayList<>();
        if (!Files.isRegularFile(log)) {
            return hits;
        }
        try (BufferedReader r = Files.newBufferedReader(log, StandardCharsets.ISO_8859_1)) {
            // ISO-8859-1 maps every byte: a log with broken UTF-8 is still searched, and an ASCII secret still matches
            String line;
            int n = 0;
            while ((line = r.readLine()) != null) {
                n++;
                if (line.contains(secret)) {
                    hits.add(log + " line " + n);
                }
            }
        } catch (IOException e) {
            hits.add(log + " could not be read (" + e.getMessage() + "): counted as a hit, an unsearched log proves nothing");
        }
        return hits;
    }

    /** Called with a worker's log just before the harness deletes it: scanned now, reported by the next audit. */
    static void scanWorkerLog(String worker, Path log) {
        List<String> hits = secretHits(log, ChaosAcl.SECRET);
        synchronized (WORKER_LOGS) {
            WORKER_LOGS.add(worker);
            hits.forEach(h -> WORKER_HITS.add("log of " + worker + ": " + h));
        }
    }

    /** The controller's slf4j-simple log file, if it logs to one (system property first, then simplelogger.properties). */
    static java.util.Optional<Path> controllerLog() {
        String file = System.getProperty("org.slf4j.simpleLogger.logFile");
        if (file == null) {
            try (InputStream in = AclAudit.class.getClassLoader().getResourceAsStream("simplelogger.properties")) {
                if (in != null) {
                    Properties p = new Properties();
                    p.load(in);
                    file = p.getProperty("org.slf4j.simpleLogger.logFile");
                }
            } catch (IOException e) {
                file = null;
            }
        }
        if (file == null || file.equals("System.err") || file.equals("System.out")) {
            return java.util.Optional.empty();
        }
        return java.util.Optional.of(Path.of(file).toAbsolutePath());
    }

}
