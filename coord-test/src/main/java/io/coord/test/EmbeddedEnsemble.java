package io.coord.test;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;
import org.apache.curator.test.TestingServer;
import org.apache.curator.test.TestingZooKeeperServer;

/**
 * A real ZooKeeper in this JVM, on loopback: one server or a quorum of three (or five). Used by the
 * JUnit extension, the {@code coord server} command, the benchmarks and the demo.
 *
 * <p>Every server runs with the four-letter words enabled so that {@link #mode(int)} can ask a
 * member whether it leads. Data lives in a temporary directory deleted on {@link #close()} unless
 * a data directory was given.
 */
public final class EmbeddedEnsemble implements AutoCloseable {
    /**
     * How to start an ensemble. {@code basePort} 0 picks free ports; {@code dataDir} null means
     * temporary; {@code maxClientConnections} is ZooKeeper's {@code maxClientCnxns} (connections
     * from one address; -1 keeps ZooKeeper's default of 60, 0 lifts the limit).
     */
    public record Options(int nodes, int basePort, Path dataDir, int tickTimeMs, int maxClientConnections) {
        public Options {
            if (nodes != 1 && nodes != 3 && nodes != 5) {
                throw new IllegalArgumentException("nodes must be 1, 3 or 5, got " + nodes);
            }
            if (basePort < 0 || basePort > 65535 - 3 * nodes) {
                throw new IllegalArgumentException("basePort " + basePort + " leaves no room for " + nodes + " servers");
            }
            if (tickTimeMs <= 0) {
                throw new IllegalArgumentException("tickTimeMs must be > 0, got " + tickTimeMs);
            }
            if (maxClientConnections < -1) {
                throw new IllegalArgumentException("maxClientConnections must be -1 (default), 0 (no limit) or more, got "
                        + maxClientConnections);
            }
        }

        public static Options single() {
            return new Options(1, 0, null, 500, -1);
        }

        public static Options quorum() {
            return new Options(3, 0, null, 500, -1);
        }

        public Options withBasePort(int port) {
            return new Options(nodes, port, dataDir, tickTimeMs, maxClientConnections);
        }

        public Options withDataDir(Path dir) {
            return new Options(nodes, basePort, dir, tickTimeMs, maxClientConnections);
        }

        public Options withTickTime(int ms) {
            return new Options(nodes, basePort, dataDir, ms, maxClientConnections);
        }

        /** ZooKeeper's {@code maxClientCnxns}: 0 lifts the limit of 60 connections from one address. */
        public Options withMaxClientConnections(int max) {
            return new Options(nodes, basePort, dataDir, tickTimeMs, max);
        }
    }

    private final Options options;
    private final TestingServer single;
    private final TestingCluster cluster;
    private final List<InstanceSpec> specs;
    private final boolean[] running;

    private EmbeddedEnsemble(Options options, TestingServer single, TestingCluster cluster, List<InstanceSpec> specs) {
        this.options = options;
        this.single = single;
        this.cluster = cluster;
        this.specs = specs;
        this.running = new boolean[specs.size()];
        java.util.Arrays.fill(running, true);
    }

    /** Starts the ensemble and returns once every server is up (a quorum has formed for 3 or 5). */
    public static EmbeddedEnsemble start(Options options) {
        List<InstanceSpec> specs = new ArrayList<>();
        Map<String, Object> props = new HashMap<>();
        props.put("4lw.commands.whitelist", "*");
        props.put("admin.enableServer", "false");
        // Lets tests ask for short sessions: minSessionTimeout = 2 x tickTime by default anyway.
        for (int i = 0; i < options.nodes(); i++) {
            File dir;
            boolean delete;
            try {
                if (options.dataDir() == null) {
                    dir = Files.createTempDirectory("coord-zk-" + i + "-").toFile();
                    delete = true;
                } else {
                    dir = Files.createDirectories(options.dataDir().resolve("zk" + (i + 1))).toFile();
                    delete = false;
                }
            } catch (IOException e) {
                throw new UncheckedIOException("could not create a ZooKeeper data directory", e);
            }
            int base = options.basePort();
            // Explicit ports below the ephemeral range: a stopped member restarts on its ports (see LoopbackPorts).
            int client = base == 0 ? LoopbackPorts.reserve() : base + i;
            int election = base == 0 ? LoopbackPorts.reserve() : base + 100 + i;
            int quorum = base == 0 ? LoopbackPorts.reserve() : base + 200 + i;
            specs.add(new InstanceSpec(dir, client, election, quorum, delete, i + 1, options.tickTimeMs(), options.maxClientConnections(), props, "127.0.0.1"));
        }
        try {
            if (options.nodes() == 1) {
                TestingServer server = inServerGroup(() -> new TestingServer(specs.get(0), true));
                return new EmbeddedEnsemble(options, server, null, specs);
            }
            TestingCluster cluster = new TestingCluster(specs.toArray(new InstanceSpec[0]));
            inServerGroup(() -> {
                cluster.start();
                return null;
            });
            EmbeddedEnsemble ensemble = new EmbeddedEnsemble(options, null, cluster, specs);
            ensemble.awaitLeader(30_000);
            return ensemble;
        } catch (Exception e) {
            throw new IllegalStateException("could not start an embedded ZooKeeper ensemble of " + options.nodes(), e);
        }
    }

    public Options options() {
        return options;
    }

    public int size() {
        return specs.size();
    }

    /** {@code 127.0.0.1:p1,127.0.0.1:p2,...} for every member, running or not. */
    public String connectString() {
        return specs.stream().map(s -> "127.0.0.1:" + s.getPort()).collect(Collectors.joining(","));
    }

    /** The connect string of one member alone. */
    public String connectString(int index) {
        return "127.0.0.1:" + specs.get(index).getPort();
    }

    public int clientPort(int index) {
        return specs.get(index).getPort();
    }

    /** Member {@code index}'s client, election and quorum ports, which a restart binds again. */
    List<Integer> boundPorts(int index) {
        InstanceSpec spec = specs.get(index);
        return List.of(spec.getPort(), spec.getElectionPort(), spec.getQuorumPort());
    }

    public boolean isRunning(int index) {
        return running[index];
    }

    /**
     * What member {@code index} says it is: {@code leader}, {@code follower} or {@code standalone};
     * empty if it does not answer (stopped, or not serving while an election runs).
     */
    public Optional<String> mode(int index) {
        if (!running[index]) {
            return Optional.empty();
        }
        return fourLetterWord(clientPort(index), "srvr").flatMap(text -> text.lines()
                .filter(l -> l.startsWith("Mode: "))
                .map(l -> l.substring("Mode: ".length()).trim())
                .findFirst());
    }

    /** The index of the current leader, or empty while there is none (single server: 0). */
    public Optional<Integer> leaderIndex() {
        if (single != null) {
            return running[0] ? Optional.of(0) : Optional.empty();
        }
        for (int i = 0; i < specs.size(); i++) {
            if (mode(i).filter("leader"::equals).isPresent()) {
                return Optional.of(i);
            }
        }
        return Optional.empty();
    }

    /** Waits (at most {@code timeoutMs}) until some member leads and answers; returns its index. */
    public int awaitLeader(long timeoutMs) {
        long deadline = System.nanoTime() + timeoutMs * 1_000_000L;
        while (System.nanoTime() < deadline) {
            Optional<Integer> leader = leaderIndex();
            if (leader.isPresent()) {
                return leader.get();
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for a ZooKeeper leader", e);
            }
        }
        throw new IllegalStateException("no ZooKeeper leader within " + timeoutMs + " ms");
    }

    /** Stops member {@code index} abruptly (its port closes; its data stays for a restart). */
    public void kill(int index) {
        try {
            if (single != null) {
                single.stop();
            } else {
                cluster.killServer(specs.get(index));
            }
            running[index] = false;
        } catch (Exception e) {
            throw new IllegalStateException("could not kill ZooKeeper member " + index, e);
        }
    }

    /** Starts a killed member again on the same port and data. */
    public void restart(int index) {
        try {
            inServerGroup(() -> {
                if (single != null) {
                    single.restart();
                } else {
                    cluster.restartServer(specs.get(index));
                }
                return null;
            });
            running[index] = true;
        } catch (Exception e) {
            throw new IllegalStateException("could not restart ZooKeeper member " + index, e);
        }
    }

    /**
     * Every thread a server starts descends from the thread that started it, and so inherits its
     * thread group: starting servers from a thread of this group lets a leak check tell the
     * ensemble's threads from a test's.
     */
    private static final ThreadGroup SERVER_THREADS = new ThreadGroup("coord-zookeeper-servers");

    /** Whether {@code t} belongs to an embedded ZooKeeper server (started by this class). */
    static boolean isServerThread(Thread t) {
        ThreadGroup g = t.getThreadGroup();
        while (g != null) {
            if (g == SERVER_THREADS) {
                return true;
            }
            g = g.getParent();
        }
        return false;
    }

    static <T> T inServerGroup(java.util.concurrent.Callable<T> start) throws Exception {
        java.util.concurrent.atomic.AtomicReference<T> result = new java.util.concurrent.atomic.AtomicReference<>();
        java.util.concurrent.atomic.AtomicReference<Exception> failure = new java.util.concurrent.atomic.AtomicReference<>();
        Thread starter = new Thread(SERVER_THREADS, () -> {
            try {
                result.set(start.call());
            } catch (Exception e) {
                failure.set(e);
            }
        }, "coord-zookeeper-starter");
        // Server threads inherit daemon-ness from their creator: keep what the caller would have given them.
        starter.setDaemon(Thread.currentThread().isDaemon());
        starter.start();
        try {
            starter.join(120_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw e;
        }
        if (starter.isAlive()) {
            starter.interrupt();
            throw new IllegalStateException("starting ZooKeeper took more than 120 s");
        }
        if (failure.get() != null) {
            throw failure.get();
        }
        return result.get();
    }

    /** The live server objects of a quorum (empty for a single server). */
    List<TestingZooKeeperServer> servers() {
        return cluster == null ? List.of() : cluster.getServers();
    }

    @Override
    public void close() {
        try {
            if (single != null) {
                single.close();
            } else {
                cluster.close();
            }
        } catch (IOException e) {
            throw new UncheckedIOException("could not stop the embedded ZooKeeper", e);
        }
    }

    /** Sends a four-letter word to a server on loopback and returns its answer, or empty. */
    public static Optional<String> fourLetterWord(int port, String word) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 1000);
            socket.setSoTimeout(2000);
            OutputStream out = socket.getOutputStream();
            out.write(word.getBytes(StandardCharsets.US_ASCII));
            out.flush();
            StringBuilder text = new StringBuilder();
            try (BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = in.readLine()) != null) {
                    text.append(line).append('\n');
                }
            }
            String answer = text.toString();
            return answer.isBlank() || answer.contains("not currently serving") ? Optional.empty() : Optional.of(answer);
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    @Override
    public String toString() {
        return "EmbeddedEnsemble[" + connectString() + "]";
    }
}
