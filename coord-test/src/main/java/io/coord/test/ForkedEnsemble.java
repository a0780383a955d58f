package io.coord.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.netcrusher.core.reactor.NioReactor;
import org.netcrusher.tcp.TcpCrusher;
import org.netcrusher.tcp.TcpCrusherBuilder;

/**
 * A ZooKeeper quorum whose servers run as child JVMs ({@code QuorumPeerMain}), for the faults that
 * need a server process: SIGSTOP of the leader (F7), kill -9 of a member, and — when started
 * {@linkplain #start(int, boolean) meshed} — partitions between servers (F9).
 *
 * <p>Meshed, every server reaches every other one through its own loopback TCP proxy: server
 * {@code i}'s configuration lists peer {@code j} at the address of proxy {@code i→j}. Cutting all
 * proxies to and from one server isolates it from the others in both directions, while clients
 * still reach every server directly. (ZooKeeper tolerates the per-server configurations because
 * dynamic reconfiguration is off: each server keeps its static view.)
 *
 * <p>{@link #close()} kills every child and deletes the data; children are also killed if the
 * test JVM exits (see {@link ChildJvm}).
 */
public final class ForkedEnsemble implements AutoCloseable {
    private static final int TICK_MS = 500;
    /**
     * syncLimit x tickTime: a follower (or the leader's view of its followers) silent for longer
     * is dropped, so a leader stopped longer than this (F7) is replaced.
     */
    public static final Duration SYNC_LIMIT = Duration.ofMillis(2 * TICK_MS);

    private final int size;
    private final Path root;
    private final int[] clientPorts;
    private final ChildJvm[] servers;
    private final boolean[] paused;
    private final NioReactor reactor;
    /** Meshed only: links[i][j] carries i's connections to j (quorum and election ports). */
    private final TcpCrusher[][][] links;

    private ForkedEnsemble(int size, Path root, int[] clientPorts, NioReactor reactor, TcpCrusher[][][] links) {
        this.size = size;
        this.root = root;
        this.clientPorts = clientPorts;
        this.servers = new ChildJvm[size];
        this.paused = new boolean[size];
        this.reactor = reactor;
        this.links = links;
    }

    /**
     * Starts {@code nodes} (3 or 5) servers with a tickTime of 500 ms, syncLimit 2 (a follower that
     * is silent for 1 s is dropped) and initLimit 10; returns once a leader serves.
     */
    public static ForkedEnsemble start(int nodes, boolean meshed) {
        if (nodes != 3 && nodes != 5) {
            throw new IllegalArgumentException("nodes must be 3 or 5, got " + nodes);
        }
        Path root;
        try {
            root = Files.createTempDirectory("coord-forked-zk-");
        } catch (IOException e) {
            throw new UncheckedIOException("could not create a data directory", e);
        }
        int[] client = new int[nodes];
        int[] quorum = new int[nodes];
        int[] election = new int[nodes];
        for (int i = 0; i < nodes; i++) {
            client[i] = LoopbackPorts.reserve();
            quorum[i] = LoopbackPorts.reserve();
            election[i] = LoopbackPorts.reserve();
        }
        NioReactor reactor = null;
        TcpCrusher[][][] links = null;
        ForkedEnsemble ensemble = null;
        try {
            if (meshed) {
                reactor = new NioReactor();
                links = new TcpCrusher[nodes][nodes][];
                for (int i = 0; i < nodes; i++) {
                    for (int j = 0; j < nodes; j++) {
                        if (i != j) {
                            links[i][j] = new TcpCrusher[] {proxy(reactor, quorum[j]), proxy(reactor, election[j])};
                        }
                    }
                }
            }
            ensemble = new ForkedEnsemble(nodes, root, client, reactor, links);
            for (int i = 0; i < nodes; i++) {
                StringBuilder cfg = new StringBuilder();
                Path data = Files.createDirectories(root.resolve("zk" + (i + 1)));
                Files.writeString(data.resolve("myid"), Integer.toString(i + 1));
                cfg.append("tickTime=").append(TICK_MS).append('\n')
                        .append("initLimit=10\nsyncLimit=2\n")
                        .append("dataDir=").append(data).append('\n')
                        .append("clientPort=").append(client[i]).append('\n')
                        .append("clientPortAddress=127.0.0.1\n")
                        .append("4lw.commands.whitelist=*\n")
                        .append("admin.enableServer=false\n")
                        .append("reconfigEnabled=false\n")
                        .append("standaloneEnabled=false\n");
                for (int j = 0; j < nodes; j++) {
                    int q = quorum[j];
                    int e = election[j];
                    if (meshed && i != j) {
                        q = links[i][j][0].getBindAddress().getPort();
                        e = links[i][j][1].getBindAddress().getPort();
                    }
                    cfg.append("server.").append(j + 1).append("=127.0.0.1:").append(q).append(':').append(e).append('\n');
                }
                Files.writeString(root.resolve("zoo" + (i + 1) + ".cfg"), cfg.toString());
            }
            for (int i = 0; i < nodes; i++) {
                ensemble.launch(i);
            }
            ensemble.awaitLeader(Awaits.scaled(Duration.ofSeconds(60)).toMillis());
            return ensemble;
        } catch (IOException e) {
            if (ensemble != null) {
                ensemble.close();
            }
            throw new UncheckedIOException("could not start a forked ZooKeeper ensemble", e);
        } catch (RuntimeException | Error e) {
            if (ensemble != null) {
                ensemble.close();
            } else if (reactor != null) {
                reactor.close();
            }
            throw e;
        }
    }

    private static TcpCrusher proxy(NioReactor reactor, int targetPort) {
        return TcpCrusherBuilder.builder()
                .withReactor(reactor)
                .withBindAddress("127.0.0.1", ClientProxy.freePort())
                .withConnectAddress(new InetSocketAddress("127.0.0.1", targetPort))
                .withConnectionTimeoutMs(2000)
                .buildAndOpen();
    }

    private void launch(int i) {
        servers[i] = ChildJvm.builder("org.apache.zookeeper.server.quorum.QuorumPeerMain")
                .jvmOption("-Dzookeeper.cnxTimeout=2000")
                .args(root.resolve("zoo" + (i + 1) + ".cfg").toString())
                .start();
        paused[i] = false;
    }

    public int size() {
        return size;
    }

    /** Every member's client address. */
    public String connectString() {
        return Stream.of(0, 1, 2, 3, 4).limit(size).map(this::connectString).collect(Collectors.joining(","));
    }

    public String connectString(int index) {
        return "127.0.0.1:" + clientPorts[index];
    }

    public int clientPort(int index) {
        return clientPorts[index];
    }

    /** The child process of member {@code index} (null while killed). */
    public ChildJvm process(int index) {
        return servers[index];
    }

    /** {@code leader}, {@code follower}, or empty if member {@code index} does not serve (or is paused). */
    public Optional<String> mode(int index) {
        if (servers[index] == null || paused[index]) {
            return Optional.empty();
        }
        return EmbeddedEnsemble.fourLetterWord(clientPorts[index], "srvr").flatMap(text -> text.lines()
                .filter(l -> l.startsWith("Mode: "))
                .map(l -> l.substring("Mode: ".length()).trim())
                .findFirst());
    }

    public Optional<Integer> leaderIndex() {
        for (int i = 0; i < size; i++) {
            if (mode(i).filter("leader"::equals).isPresent()) {
                return Optional.of(i);
            }
        }
        return Optional.empty();
    }

    /** Waits at most {@code timeoutMs} for a serving leader and returns its index. */
    public int awaitLeader(long timeoutMs) {
        return Awaits.value("a leader in " + this, Duration.ofMillis(timeoutMs), this::leaderIndex);
    }

    /** SIGSTOP of member {@code index} (F7 when it leads). */
    public void pause(int index) {
        paused[index] = true; // SIGSTOP is sent even if confirming the stop then fails: resume() must still send SIGCONT
        servers[index].pause();
    }

    /** Whether member {@code index} is stopped by {@link #pause}. */
    public boolean isPaused(int index) {
        return paused[index];
    }

    public void resume(int index) {
        servers[index].resume();
        paused[index] = false;
    }

    /** kill -9 of member {@code index}; {@link #restart} brings it back on the same data. */
    public void kill9(int index) {
        servers[index].kill9();
        servers[index].close();
        servers[index] = null;
    }

    public void restart(int index) {
        if (servers[index] != null) {
            throw new IllegalStateException("member " + index + " is running");
        }
        launch(index);
    }

    /**
     * F9: cuts every link between member {@code index} and the others, both ways (open connections
     * are reset, new ones refused). Clients still reach it directly. Only for a meshed ensemble.
     */
    public void isolate(int index) {
        for (TcpCrusher c : linksOf(index)) {
            c.close();
        }
    }

    /**
     * Holds every link between member {@code index} and the others, both ways: the connections
     * stay open but nothing passes until {@link #thaw}. A follower held from its leader goes on
     * serving its clients from a state that lags behind the leader's (thaw it within syncLimit ×
     * tickTime = 1 s, or it drops out). Only for a meshed ensemble.
     */
    public void freeze(int index) {
        for (TcpCrusher c : linksOf(index)) {
            c.freeze();
        }
    }

    /** Lets member {@code index}'s links held by {@link #freeze} pass again. */
    public void thaw(int index) {
        for (TcpCrusher c : linksOf(index)) {
            c.unfreeze();
        }
    }

    /** Restores every link cut by {@link #isolate}. */
    public void heal() {
        for (int i = 0; i < size; i++) {
            for (TcpCrusher c : linksOf(i)) {
                if (!c.isOpen()) {
                    c.open();
                }
            }
        }
    }

    private List<TcpCrusher> linksOf(int index) {
        if (links == null) {
            throw new IllegalStateException("partitions need an ensemble started meshed");
        }
        List<TcpCrusher> result = new ArrayList<>();
        for (int j = 0; j < size; j++) {
            if (j != index) {
                result.addAll(List.of(links[index][j]));
                result.addAll(List.of(links[j][index]));
            }
        }
        return result;
    }

    /** Tail of member {@code index}'s log, for failure messages. */
    public String log(int index) {
        return servers[index] == null ? "(killed)" : servers[index].stderrTail();
    }

    /**
     * Kills every member, closes the proxies and deletes the data. Never throws. With the system
     * property {@code coord.test.keepLogs} set to a directory, the members' logs are copied there
     * first (zk1.log, zk2.log, ...).
     */
    @Override
    public void close() {
        String keep = System.getProperty("coord.test.keepLogs");
        for (int i = 0; i < size; i++) {
            if (servers[i] != null && keep != null && !keep.isBlank()) {
                try {
                    Path dir = Files.createDirectories(Path.of(keep));
                    Files.copy(servers[i].stderr(), dir.resolve("zk" + (i + 1) + ".log"), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
                } catch (IOException e) {
                    // diagnostics only
                }
            }
            if (servers[i] != null) {
                servers[i].close();
                servers[i] = null;
            }
        }
        if (links != null) {
            for (TcpCrusher[][] row : links) {
                for (TcpCrusher[] pair : row) {
                    if (pair != null) {
                        for (TcpCrusher c : pair) {
                            try {
                                c.close();
                            } catch (RuntimeException e) {
                                // closing the reactor below ends it anyway
                            }
                        }
                    }
                }
            }
        }
        if (reactor != null) {
            reactor.close();
        }
        try (Stream<Path> paths = Files.walk(root)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException | UncheckedIOException e) {
            // temporary files; nothing else to do
        }
    }

    @Override
    public String toString() {
        return "ForkedEnsemble[" + connectString() + (links != null ? " meshed" : "") + "]";
    }
}
