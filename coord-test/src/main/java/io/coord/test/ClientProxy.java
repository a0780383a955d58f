package io.coord.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.netcrusher.NetCrusherException;
import org.netcrusher.core.reactor.NioReactor;
import org.netcrusher.tcp.TcpCrusher;
import org.netcrusher.tcp.TcpCrusherBuilder;

/**
 * A loopback TCP proxy in front of one or more ZooKeeper servers, for network faults on one
 * client: connect that client to {@link #connectString()} instead of the ensemble's.
 *
 * <ul>
 *   <li>{@link #cut()} resets every connection through the proxy; new ones are accepted at once
 *       (F4: connection drop without session loss).
 *   <li>{@link #freeze()} black-holes it: open connections stay open and carry nothing, new ones
 *       are not served (F5). {@link #unfreeze()} lets traffic flow again.
 *   <li>{@link #refuse()} stops listening (connection refused) until {@link #accept()}.
 * </ul>
 *
 * Built on netcrusher's {@code TcpCrusher} (pure Java NIO, one selector thread per proxy).
 * Listens on 127.0.0.1 only.
 */
public final class ClientProxy implements AutoCloseable {
    private final NioReactor reactor;
    private final List<TcpCrusher> crushers;

    private ClientProxy(NioReactor reactor, List<TcpCrusher> crushers) {
        this.reactor = reactor;
        this.crushers = crushers;
    }

    /**
     * A proxy for every server of {@code connectString} ({@code host:port[,host:port...]}, no
     * chroot). Each server gets its own local port.
     */
    public static ClientProxy to(String connectString) {
        if (connectString == null || connectString.isBlank() || connectString.contains("/")) {
            throw new IllegalArgumentException("connectString must be host:port[,host:port...] without a chroot, got '" + connectString + "'");
        }
        List<InetSocketAddress> targets = new ArrayList<>();
        for (String part : connectString.split(",")) {
            int colon = part.lastIndexOf(':');
            if (colon <= 0) {
                throw new IllegalArgumentException("server '" + part + "' in '" + connectString + "' has no port");
            }
            try {
                targets.add(new InetSocketAddress(part.substring(0, colon).trim(), Integer.parseInt(part.substring(colon + 1).trim())));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("server '" + part + "' in '" + connectString + "' has a bad port", e);
            }
        }
        NioReactor reactor;
        try {
            reactor = new NioReactor();
        } catch (IOException e) {
            throw new UncheckedIOException("could not start the proxy's selector", e);
        }
        List<TcpCrusher> crushers = new ArrayList<>();
        try {
            for (InetSocketAddress target : targets) {
                crushers.add(open(reactor, target));
            }
            return new ClientProxy(reactor, crushers);
        } catch (RuntimeException e) {
            crushers.forEach(TcpCrusher::close);
            reactor.close();
            throw e;
        }
    }

    /** A proxy in front of every member of {@code ensemble}. */
    public static ClientProxy to(EmbeddedEnsemble ensemble) {
        return to(ensemble.connectString());
    }

    private static TcpCrusher open(NioReactor reactor, InetSocketAddress target) {
        // netcrusher needs a concrete port; pick a free one and retry if another process takes it first.
        NetCrusherException last = null;
        for (int attempt = 0; attempt < 5; attempt++) {
            int port = freePort();
            try {
                return TcpCrusherBuilder.builder()
                        .withReactor(reactor)
                        .withBindAddress("127.0.0.1", port)
                        .withConnectAddress(target)
                        .withConnectionTimeoutMs(2000)
                        .buildAndOpen();
            } catch (NetCrusherException e) {
                last = e;
            }
        }
        throw new IllegalStateException("could not open a proxy to " + target, last);
    }

    static int freePort() {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            s.setReuseAddress(true);
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free loopback port", e);
        }
    }

    /** The connect string a client should use to go through this proxy. */
    public String connectString() {
        return crushers.stream().map(c -> "127.0.0.1:" + c.getBindAddress().getPort()).collect(Collectors.joining(","));
    }

    /** Resets every open connection; the proxy keeps accepting new ones. */
    public void cut() {
        crushers.forEach(TcpCrusher::closeAllPairs);
    }

    /** Black hole: nothing passes in either direction, connections stay open, new ones hang. */
    public void freeze() {
        crushers.forEach(TcpCrusher::freeze);
    }

    /** Ends a {@link #freeze()}: buffered and new traffic flows again. */
    public void unfreeze() {
        crushers.forEach(TcpCrusher::unfreeze);
    }

    /** Stops listening and resets every connection: clients see "connection refused". */
    public void refuse() {
        crushers.forEach(TcpCrusher::close);
    }

    /** Listens again after {@link #refuse()}. */
    public void accept() {
        crushers.forEach(c -> {
            if (!c.isOpen()) {
                c.open();
            }
        });
    }

    /** Connections currently open through the proxy. */
    public int openConnections() {
        return crushers.stream().mapToInt(c -> c.getClientAddresses().size()).sum();
    }

    /** Closes every connection, stops listening and ends the selector thread. Idempotent. */
    @Override
    public void close() {
        if (!reactor.isOpen()) {
            return;
        }
        for (TcpCrusher c : crushers) {
            try {
                c.close();
            } catch (RuntimeException e) {
                // keep closing the others; the reactor close below ends everything anyway
            }
        }
        reactor.close();
    }

    @Override
    public String toString() {
        return "ClientProxy[" + connectString() + "]";
    }
}
