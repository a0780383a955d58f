package io.coord.bench;

import io.coord.CoordClient;
import io.coord.CoordSettings;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;

/**
 * What a {@link Benchmark} gets: the server to run against, how many operations and rounds to
 * run, fresh clients of both kinds, and {@link #alternate}, which runs ours and the peer in
 * alternating rounds.
 */
public final class BenchContext {
    /** Within the embedded server's 2..20 x tickTime (500 ms), so neither side's timeout is clamped. */
    static final Duration SESSION_TIMEOUT = Duration.ofSeconds(10);
    static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(10);

    private final String connectString;
    private final int opsOverride;
    private final int rounds;
    private final boolean verbose;
    private final PrintWriter progress;

    BenchContext(String connectString, BenchOptions options, PrintWriter progress) {
        this.connectString = connectString;
        this.opsOverride = options.ops();
        this.rounds = options.rounds();
        this.verbose = options.verbose();
        this.progress = progress;
    }

    /** One measured round of one side; {@code round} is -1 for the warm-up, then 0, 1, ... */
    @FunctionalInterface
    public interface Round<R> {
        R run(int round) throws InterruptedException;
    }

    /** The per-round results of both sides, in round order (warm-up excluded). */
    public record Paired<R>(List<R> ours, List<R> peer) {
        public Paired {
            ours = List.copyOf(ours);
            peer = List.copyOf(peer);
        }
    }

    public String connectString() {
        return connectString;
    }

    /** Operations per round: the benchmark's default unless the run overrides it ({@code --ops}). */
    public int ops(int defaultOps) {
        return opsOverride > 0 ? opsOverride : defaultOps;
    }

    /** Measured rounds per side (the warm-up round comes on top). */
    public int rounds() {
        return rounds;
    }

    /** A new Coord client of the server. The caller closes it. */
    public CoordClient newCoordClient() throws InterruptedException {
        return CoordClient.connect(CoordSettings.builder()
                .connectString(connectString)
                .sessionTimeout(SESSION_TIMEOUT)
                .connectionTimeout(CONNECT_TIMEOUT)
                .build());
    }

    /** A new raw ZooKeeper handle, connected. The caller closes it. */
    public ZooKeeper newZooKeeper() throws InterruptedException {
        CountDownLatch connected = new CountDownLatch(1);
        ZooKeeper zk;
        try {
            zk = new ZooKeeper(connectString, (int) SESSION_TIMEOUT.toMillis(), event -> {
                if (event.getState() == Watcher.Event.KeeperState.SyncConnected) {
                    connected.countDown();
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException("could not create a ZooKeeper handle for " + connectString, e);
        }
        if (!connected.await(CONNECT_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
            zk.close();
            throw new IllegalStateException("raw ZooKeeper handle could not connect to " + connectString + " within " + CONNECT_TIMEOUT);
        }
        return zk;
    }

    /**
     * Runs a warm-up round of each side, then {@link #rounds()} measured rounds of each, alternating
     * which side goes first (ours, peer; peer, ours; ...) so that drift in machine load, GC and the
     * server's own state falls on both sides alike. With {@code --verbose} each round's results are
     * shown as progress, to judge the noise behind a median.
     */
    public <R> Paired<R> alternate(Round<R> ours, Round<R> peer) throws InterruptedException {
        ours.run(-1);
        peer.run(-1);
        List<R> o = new ArrayList<>();
        List<R> p = new ArrayList<>();
        for (int round = 0; round < rounds; round++) {
            if (round % 2 == 0) {
                o.add(ours.run(round));
                p.add(peer.run(round));
            } else {
                p.add(peer.run(round));
                o.add(ours.run(round));
            }
        }
        if (verbose) {
            for (int round = 0; round < rounds; round++) {
                progress("  round " + (round + 1) + ": ours " + o.get(round) + " | peer " + p.get(round));
            }
        }
        return new Paired<>(o, p);
    }

    /** Opens one side's fixture (its clients): for {@link #oneSideAtATime}. */
    @FunctionalInterface
    public interface Fixture<F extends AutoCloseable> {
        F open() throws InterruptedException;
    }

    /** One round of one side on its open fixture; {@code round} is -1 for the warm-up. */
    @FunctionalInterface
    public interface FixtureRound<F, R> {
        R run(F fixture, int round) throws InterruptedException;
    }

    /**
     * For sides too big to hold both at once (hundreds of clients each): opens our fixture, runs a
     * warm-up round and {@link #rounds()} measured rounds on it, closes it, then the same for the
     * peer. Unlike {@link #alternate} the sides do not interleave, so drift in machine load can
     * fall on one side; the scale curves accept that to keep only one fleet of clients alive.
     */
    public <F extends AutoCloseable, R> Paired<R> oneSideAtATime(Fixture<? extends F> ours, Fixture<? extends F> peer,
            FixtureRound<F, R> round) throws InterruptedException {
        List<R> o = roundsOn(ours, round);
        List<R> p = roundsOn(peer, round);
        if (verbose) {
            for (int i = 0; i < rounds; i++) {
                progress("  round " + (i + 1) + ": ours " + o.get(i) + " | peer " + p.get(i));
            }
        }
        return new Paired<>(o, p);
    }

    private <F extends AutoCloseable, R> List<R> roundsOn(Fixture<? extends F> side, FixtureRound<F, R> round) throws InterruptedException {
        List<R> results = new ArrayList<>();
        try (F fixture = side.open()) {
            round.run(fixture, -1);
            for (int i = 0; i < rounds; i++) {
                results.add(round.run(fixture, i));
            }
        } catch (InterruptedException | RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException("closing a benchmark fixture failed: " + e, e);
        }
        return results;
    }

    /** A progress line on the error stream (stdout stays the table). */
    public void progress(String line) {
        progress.println(line);
        progress.flush();
    }
}
