package io.coord.membership;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import org.netcrusher.core.reactor.NioReactor;
import org.netcrusher.tcp.TcpCrusher;
import org.netcrusher.tcp.TcpCrusherBuilder;

/**
 * A loopback TCP proxy in front of one server, for connection cuts on one client (netcrusher).
 * Private stand-in for coord-test's ClientProxy until it is on main.
 */
final class TestProxy implements AutoCloseable {
    private final NioReactor reactor;
    private final TcpCrusher crusher;
    private final int port;

    private TestProxy(NioReactor reactor, TcpCrusher crusher, int port) {
        this.reactor = reactor;
        this.crusher = crusher;
        this.port = port;
    }

    /** A proxy to {@code hostPort} ({@code 127.0.0.1:port}). */
    static TestProxy to(String hostPort) {
        String[] parts = hostPort.split(":");
        try {
            NioReactor reactor = new NioReactor();
            int port;
            try (ServerSocket probe = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
                port = probe.getLocalPort();
            }
            TcpCrusher crusher = TcpCrusherBuilder.builder().withReactor(reactor)
                    .withBindAddress("127.0.0.1", port)
                    .withConnectAddress(parts[0], Integer.parseInt(parts[1]))
                    .buildAndOpen();
            return new TestProxy(reactor, crusher, port);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    String connectString() {
        return "127.0.0.1:" + port;
    }

    /** Resets every connection through the proxy; new ones are accepted at once. */
    void cut() {
        crusher.closeAllPairs();
    }

    /** Stops listening and resets every connection: the client sees "connection refused" until {@link #accept()}. */
    void refuse() {
        crusher.close();
    }

    /** Listens again after {@link #refuse()}. */
    void accept() {
        crusher.open();
    }

    @Override
    public void close() {
        crusher.close();
        reactor.close();
    }
}
