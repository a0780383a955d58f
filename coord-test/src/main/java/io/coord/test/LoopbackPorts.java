package io.coord.test;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Loopback ports for servers that stop and start again on the same port.
 *
 * <p>A port from {@code new ServerSocket(0)} comes from the kernel's ephemeral range, the same range
 * every outgoing connection on the machine takes its local port from. While an ensemble member is
 * stopped, any client connection may be given its quorum or election port, and the restarted member
 * cannot bind it: ZooKeeper then exits the whole JVM (exit code 14, UNABLE_TO_BIND_QUORUM_PORT), which
 * killed a test fork in CI. Ports handed out here lie below the ephemeral range, where the kernel never
 * assigns a port on its own, and are never handed out twice by one JVM. Two JVMs that pick the same
 * random port at the same instant are caught by the bind check of the later one.
 */
final class LoopbackPorts {
    private static final Path EPHEMERAL_RANGE = Path.of("/proc/sys/net/ipv4/ip_local_port_range");
    /** Linux's default first ephemeral port, used when the range cannot be read. */
    private static final int DEFAULT_EPHEMERAL_LOW = 32768;
    private static final int SPAN = 12_000;
    private static final int LOWEST = 1024;
    private static final Set<Integer> handedOut = new HashSet<>();

    private LoopbackPorts() {
    }

    /** A port that no other server listens on and that the kernel will not give to a client socket. */
    static synchronized int reserve() {
        int high = ephemeralLow() - 1;
        int low = Math.max(LOWEST, high - SPAN);
        if (high <= low) {
            return ClientProxy.freePort();
        }
        ThreadLocalRandom random = ThreadLocalRandom.current();
        for (int attempt = 0; attempt < 200; attempt++) {
            int port = random.nextInt(low, high + 1);
            if (!handedOut.contains(port) && bindable(port)) {
                handedOut.add(port);
                return port;
            }
        }
        throw new IllegalStateException("no free loopback port in " + low + ".." + high + " after 200 tries");
    }

    static int ephemeralLow() {
        try {
            // Not Files.readString: it sizes its read by the file's length, which /proc reports as 0
            // (JDK 17 returned just "3" here).
            String[] range = Files.readAllLines(EPHEMERAL_RANGE).get(0).trim().split("\\s+");
            return Integer.parseInt(range[0]);
        } catch (IOException | RuntimeException e) {
            return DEFAULT_EPHEMERAL_LOW;
        }
    }

    private static boolean bindable(int port) {
        try (ServerSocket s = new ServerSocket()) {
            s.setReuseAddress(true);
            s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1);
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
