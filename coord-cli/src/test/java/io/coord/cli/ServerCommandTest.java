package io.coord.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.CoordClient;
import io.coord.CoordSettings;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** Runs {@code coord server} in this JVM on free ports, uses what it prints, and stops it. */
class ServerCommandTest {
    private static final long START_BUDGET_MS = 60_000;

    @Test
    void singleServerPrintsAConnectStringAClientCanUseAndStopsOnRequest() throws Exception {
        runServer(List.of("server", "--port", "0"), connect -> {
            assertEquals(1, connect.split(",").length, connect);
            useWithAClient(connect);
        }, "standalone");
    }

    @Test
    void threeNodeEnsemblePrintsThreeAddressesWithOneLeaderAndServesClients() throws Exception {
        runServer(List.of("server", "--nodes", "3", "--port", "0"), connect -> {
            assertEquals(3, connect.split(",").length, connect);
            useWithAClient(connect);
        }, "leader");
    }

    @Test
    void aPortInUseIsAOneLineErrorNamingThePort() throws IOException {
        try (ServerSocket taken = new ServerSocket()) {
            taken.setReuseAddress(true);
            taken.bind(new InetSocketAddress(0));
            int port = taken.getLocalPort();
            Cli.Result r = Cli.run("server", "--port", String.valueOf(port));
            assertEquals(CoordCommand.FAILED, r.exitCode());
            assertEquals(1, r.err().lines().count(), r.err());
            assertTrue(r.err().contains("port " + port + " is already in use"), r.err());
        }
    }

    interface ClientCheck {
        void accept(String connect) throws Exception;
    }

    private static void runServer(List<String> args, ClientCheck check, String expectedMode) throws Exception {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = Main.commandLine(new PrintWriter(out, true), new PrintWriter(err, true));
        ServerCommand server = cl.getSubcommands().get("server").getCommand();
        AtomicInteger exit = new AtomicInteger(-1);
        Thread runner = new Thread(() -> exit.set(cl.execute(args.toArray(new String[0]))), "coord-server-under-test");
        runner.start();
        String connect = null;
        try {
            connect = awaitConnectLine(out, runner).orElseThrow(() -> new AssertionError(
                    "no 'connect:' line within " + START_BUDGET_MS + " ms; out:\n" + out + "\nerr:\n" + err));
            assertTrue(out.toString().contains(expectedMode), out.toString());
            check.accept(connect);
        } finally {
            server.stop();
            runner.join(30_000);
        }
        assertFalse(runner.isAlive(), "server command still running 30 s after stop()");
        assertEquals(0, exit.get(), err.toString());
        assertTrue(out.toString().contains("stopped"), out.toString());
        for (String hostPort : connect.split(",")) {
            int port = Integer.parseInt(hostPort.substring(hostPort.lastIndexOf(':') + 1));
            assertThrows(IOException.class, () -> {
                try (Socket s = new Socket()) {
                    s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1000);
                }
            }, "port " + port + " still accepts connections after stop");
        }
    }

    private static Optional<String> awaitConnectLine(StringWriter out, Thread runner) throws InterruptedException {
        long deadline = System.nanoTime() + START_BUDGET_MS * 1_000_000;
        while (System.nanoTime() < deadline && runner.isAlive()) {
            Optional<String> line = out.toString().lines().filter(l -> l.startsWith("connect: ")).findFirst();
            if (line.isPresent() && out.toString().contains("Ctrl-C")) {
                return Optional.of(line.get().substring("connect: ".length()).trim());
            }
            Thread.sleep(20);
        }
        return Optional.empty();
    }

    private static void useWithAClient(String connect) throws Exception {
        try (CoordClient client = CoordClient.connect(CoordSettings.builder().connectString(connect)
                .sessionTimeout(Duration.ofSeconds(6)).connectionTimeout(Duration.ofSeconds(15)).build())) {
            byte[] value = "hello".getBytes(StandardCharsets.UTF_8);
            client.curator().create().forPath("/coord-cli-test", value);
            assertEquals("hello", new String(client.curator().getData().forPath("/coord-cli-test"), StandardCharsets.UTF_8));
        }
    }
}
