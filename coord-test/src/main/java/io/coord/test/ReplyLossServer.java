package io.coord.test;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.apache.jute.Record;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.server.FinalRequestProcessor;
import org.apache.zookeeper.server.PrepRequestProcessor;
import org.apache.zookeeper.server.Request;
import org.apache.zookeeper.server.RequestProcessor;
import org.apache.zookeeper.server.ServerCnxn;
import org.apache.zookeeper.server.ServerCnxnFactory;
import org.apache.zookeeper.server.SyncRequestProcessor;
import org.apache.zookeeper.server.ZooKeeperServer;
import org.apache.zookeeper.txn.CreateContainerTxn;
import org.apache.zookeeper.txn.CreateTTLTxn;
import org.apache.zookeeper.txn.CreateTxn;
import org.apache.zookeeper.txn.DeleteTxn;
import org.apache.zookeeper.txn.SetDataTxn;

/**
 * A standalone ZooKeeper server on loopback that can lose the reply to a create or a transaction
 * (fault F10): once armed ({@link #dropNextCreateReply}, {@link #dropNextSetDataReply},
 * {@link #dropNextMultiReply}), the next
 * matching request is logged and applied as usual, but the client's connection is closed just
 * before the reply would be sent. The client sees {@code ConnectionLoss} for a write that did
 * happen — the case Curator's protected mode and Coord's own recovery exist for.
 *
 * <p>It works by putting a step in front of ZooKeeper's final request processor (the one that
 * applies a committed transaction and replies), the pattern of Curator's own
 * {@code ChaosMonkeyCnxnFactory} test helper. It relies on {@link ZooKeeperServer}'s protected
 * {@code setupRequestProcessors}, so it is tied to ZooKeeper 3.9's server internals.
 */
public final class ReplyLossServer implements AutoCloseable {
    private final Path dataDir;
    private final DroppingServer server;
    private final ServerCnxnFactory factory;

    private ReplyLossServer(Path dataDir, DroppingServer server, ServerCnxnFactory factory) {
        this.dataDir = dataDir;
        this.server = server;
        this.factory = factory;
    }

    /** Starts a server with a tickTime of 500 ms (sessions of 1–10 s) on a free loopback port. */
    public static ReplyLossServer start() {
        Path dir;
        try {
            dir = Files.createTempDirectory("coord-zk-replyloss-");
        } catch (IOException e) {
            throw new UncheckedIOException("could not create a ZooKeeper data directory", e);
        }
        try {
            // Started from the ensemble's thread group, so leak checks do not count its threads.
            return EmbeddedEnsemble.inServerGroup(() -> {
                File d = dir.toFile();
                DroppingServer zks = new DroppingServer(d, 500);
                ServerCnxnFactory f = ServerCnxnFactory.createFactory(new InetSocketAddress("127.0.0.1", 0), 100);
                try {
                    f.startup(zks);
                } catch (IOException | InterruptedException | RuntimeException e) {
                    f.shutdown();
                    zks.shutdown();
                    throw e;
                }
                return new ReplyLossServer(dir, zks, f);
            });
        } catch (Exception e) {
            deleteTree(dir);
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            throw new IllegalStateException("could not start the reply-losing ZooKeeper server", e);
        }
    }

    public String connectString() {
        return "127.0.0.1:" + factory.getLocalPort();
    }

    /**
     * Arms the fault: the next create whose server-side path (chroot and namespace included)
     * starts with {@code pathPrefix} is applied but its reply is lost. One create per call.
     */
    public void dropNextCreateReply(String pathPrefix) {
        dropNextCreateReply(pathPrefix, () -> { });
    }

    /**
     * Like {@link #dropNextCreateReply(String)}, running {@code beforeClose} once the create is
     * logged and just before the client's connection is closed (as {@link #dropNextMultiReply(Runnable)}).
     */
    public void dropNextCreateReply(String pathPrefix, Runnable beforeClose) {
        if (pathPrefix == null || !pathPrefix.startsWith("/")) {
            throw new IllegalArgumentException("pathPrefix must be an absolute path, got '" + pathPrefix + "'");
        }
        server.armed.set(new Trigger(request -> {
            String path = createdPath(request.getTxn());
            return path != null && path.startsWith(pathPrefix);
        }, beforeClose));
    }

    /**
     * Arms the fault: the next {@code setData} whose server-side path (chroot and namespace
     * included) starts with {@code pathPrefix} is applied but its reply is lost. Curator's retry of
     * a versioned {@code setData} then meets its own write as {@code BadVersion}.
     */
    public void dropNextSetDataReply(String pathPrefix) {
        if (pathPrefix == null || !pathPrefix.startsWith("/")) {
            throw new IllegalArgumentException("pathPrefix must be an absolute path, got '" + pathPrefix + "'");
        }
        server.armed.set(new Trigger(request -> request.getTxn() instanceof SetDataTxn t && t.getPath().startsWith(pathPrefix),
                () -> { }));
    }

    /** Arms the fault for the next {@code multi} transaction (from any client) that commits. */
    public void dropNextMultiReply() {
        dropNextMultiReply(() -> { });
    }

    /**
     * Like {@link #dropNextMultiReply()}, running {@code beforeClose} once the transaction is logged
     * and just before the client's connection is closed — e.g. to keep that client from
     * reconnecting (a proxy that refuses) while the test changes what its retry would find.
     */
    public void dropNextMultiReply(Runnable beforeClose) {
        server.armed.set(new Trigger(request -> request.type == ZooDefs.OpCode.multi
                && request.getHdr().getType() == ZooDefs.OpCode.multi, beforeClose));
    }

    /**
     * Arms a hold: the reply to the next create whose server-side path starts with
     * {@code pathPrefix} is held back until the same session has sent a later request (seen as it
     * reaches the server), or for at most {@code bound}. The future says whether a later request
     * came while the reply was held, i.e. whether the client sent it without waiting for the reply.
     * Every reply of the server waits meanwhile: one hold at a time, with a short bound.
     */
    public CompletableFuture<Boolean> holdNextCreateReply(String pathPrefix, Duration bound) {
        return hold(request -> {
            String path = createdPath(request.getTxn());
            return path != null && path.startsWith(pathPrefix);
        }, pathPrefix, bound);
    }

    /** Like {@link #holdNextCreateReply}, for the next delete whose server-side path starts with {@code pathPrefix}. */
    public CompletableFuture<Boolean> holdNextDeleteReply(String pathPrefix, Duration bound) {
        return hold(request -> request.getTxn() instanceof DeleteTxn d && d.getPath().startsWith(pathPrefix), pathPrefix, bound);
    }

    private CompletableFuture<Boolean> hold(Predicate<Request> matches, String pathPrefix, Duration bound) {
        if (pathPrefix == null || !pathPrefix.startsWith("/")) {
            throw new IllegalArgumentException("pathPrefix must be an absolute path, got '" + pathPrefix + "'");
        }
        if (bound == null || bound.isNegative() || bound.isZero()) {
            throw new IllegalArgumentException("bound must be positive, got " + bound);
        }
        Hold h = new Hold(matches, bound.toNanos(), new CompletableFuture<>());
        server.held.set(h);
        return h.outcome();
    }

    /** Whether an armed fault has not fired yet. */
    public boolean isArmed() {
        return server.armed.get() != null;
    }

    /** How many replies were dropped so far. */
    public int droppedReplies() {
        return server.dropped.get();
    }

    @Override
    public void close() {
        try {
            factory.shutdown();
            server.shutdown();
        } finally {
            deleteTree(dataDir);
        }
    }

    private static void deleteTree(Path dir) {
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException | UncheckedIOException e) {
            // a temporary directory; nothing else to do
        }
    }

    private static final class DroppingServer extends ZooKeeperServer {
        final AtomicReference<Trigger> armed = new AtomicReference<>();
        final AtomicInteger dropped = new AtomicInteger();
        final AtomicReference<Hold> held = new AtomicReference<>();
        /** The highest client xid each session's requests reached the server with (for {@link Hold}). */
        final ConcurrentHashMap<Long, Integer> lastArrived = new ConcurrentHashMap<>();

        DroppingServer(File dir, int tickTime) throws IOException {
            super(dir, dir, tickTime);
        }

        @Override
        protected void setupRequestProcessors() {
            RequestProcessor finalProcessor = new ReplyDropper(new FinalRequestProcessor(this), this);
            SyncRequestProcessor sync = new SyncRequestProcessor(this, finalProcessor);
            sync.start();
            PrepRequestProcessor prep = new PrepRequestProcessor(this, sync);
            prep.start();
            firstProcessor = new ArrivalRecorder(prep, this);
        }
    }

    /** A reply to hold back, how long at most, and whether a later request of its session came meanwhile. */
    private record Hold(Predicate<Request> matches, long boundNanos, CompletableFuture<Boolean> outcome) {
    }

    /** A step this server puts in ZooKeeper's request pipeline, in front of {@code next}. */
    private abstract static class Step implements RequestProcessor {
        final RequestProcessor next;
        final DroppingServer server;

        Step(RequestProcessor next, DroppingServer server) {
            this.next = next;
            this.server = server;
        }

        @Override
        public void shutdown() {
            next.shutdown();
        }
    }

    /** Notes each request's session and xid as it reaches the server, before ZooKeeper prepares it. */
    private static final class ArrivalRecorder extends Step {
        ArrivalRecorder(RequestProcessor next, DroppingServer server) {
            super(next, server);
        }

        @Override
        public void processRequest(Request request) throws RequestProcessorException {
            synchronized (server.lastArrived) {
                server.lastArrived.merge(request.sessionId, request.cxid, Math::max);
                server.lastArrived.notifyAll();
            }
            next.processRequest(request);
        }
    }

    /** Which committed request loses its reply, and what to do just before. */
    private record Trigger(Predicate<Request> matches, Runnable beforeClose) {
    }

    private static String createdPath(Record txn) {
        if (txn instanceof CreateTxn c) {
            return c.getPath();
        }
        if (txn instanceof CreateContainerTxn c) {
            return c.getPath();
        }
        if (txn instanceof CreateTTLTxn c) {
            return c.getPath();
        }
        return null;
    }

    /** Closes the client's connection before the final processor applies a matching request and replies. */
    private static final class ReplyDropper extends Step {
        ReplyDropper(RequestProcessor next, DroppingServer server) {
            super(next, server);
        }

        @Override
        public void processRequest(Request request) throws RequestProcessorException {
            Trigger trigger = server.armed.get();
            if (trigger != null && request.cnxn != null && request.getHdr() != null && trigger.matches().test(request)
                    && server.armed.compareAndSet(trigger, null)) {
                trigger.beforeClose().run();
                // The transaction is already in the log; closing first means the reply has nowhere to go.
                request.cnxn.close(ServerCnxn.DisconnectReason.CONNECTION_CLOSE_FORCED);
                server.dropped.incrementAndGet();
            }
            Hold hold = server.held.get();
            if (hold != null && request.cnxn != null && request.getHdr() != null && hold.matches().test(request)
                    && server.held.compareAndSet(hold, null)) {
                hold.outcome().complete(awaitLater(request, hold.boundNanos()));
            }
            next.processRequest(request);
        }

        /** Waits (bounded) until the request's session sent a later request; whether it did. */
        private boolean awaitLater(Request request, long boundNanos) {
            long deadline = System.nanoTime() + boundNanos;
            synchronized (server.lastArrived) {
                while (server.lastArrived.getOrDefault(request.sessionId, Integer.MIN_VALUE) <= request.cxid) {
                    long left = deadline - System.nanoTime();
                    if (left <= 0) {
                        return false;
                    }
                    try {
                        TimeUnit.NANOSECONDS.timedWait(server.lastArrived, left);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return false;
                    }
                }
                return true;
            }
        }

    }
}
