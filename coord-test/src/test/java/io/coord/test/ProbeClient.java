package io.coord.test;

import io.coord.CoordClient;
import io.coord.CoordSession;
import io.coord.CoordSettings;
import io.coord.SessionListener;
import io.coord.SessionState;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import org.apache.zookeeper.CreateMode;

/**
 * A Coord client in a child JVM, answering one line per command on stdout:
 * {@code ping}, {@code session}, {@code ephemeral <path>}, {@code events}, {@code clock}, {@code exit}.
 * Args: connect string, requested session timeout in ms. Exits when stdin ends (its parent died).
 */
public final class ProbeClient {
    private static final List<String> EVENTS = new CopyOnWriteArrayList<>();

    private ProbeClient() {
    }

    public static void main(String[] args) throws Exception {
        CoordSettings settings = CoordSettings.builder()
                .connectString(args[0])
                .sessionTimeout(Duration.ofMillis(Long.parseLong(args[1])))
                // A loaded machine can slow a first connect past 10 s (seen once at load 14): the bound is for a hang.
                .connectionTimeout(Duration.ofSeconds(60))
                .build();
        Executor direct = Runnable::run;
        try (CoordClient client = CoordClient.connect(settings)) {
            watch(client.session(), direct);
            client.onNewSession(s -> {
                EVENTS.add("new:" + s.idHex());
                watch(s, direct);
            }, direct);
            System.out.println("ready " + client.session().idHex() + " " + client.negotiatedSessionTimeout().toMillis());
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            String line;
            while ((line = in.readLine()) != null) {
                String answer;
                try {
                    answer = handle(client, line.trim());
                } catch (Exception e) {
                    answer = "error " + e.getClass().getSimpleName() + " " + String.valueOf(e.getMessage()).replace('\n', ' ');
                }
                if (answer == null) {
                    break;
                }
                System.out.println(answer);
            }
        }
        System.exit(0);
    }

    private static void watch(CoordSession session, Executor executor) {
        session.addListener(new SessionListener() {
            @Override
            public void onSuspended(CoordSession s) {
                EVENTS.add("suspended:" + s.idHex());
            }

            @Override
            public void onReconnected(CoordSession s) {
                EVENTS.add("reconnected:" + s.idHex());
            }

            @Override
            public void onEnded(CoordSession s, SessionState finalState) {
                EVENTS.add("ended:" + s.idHex() + ":" + finalState);
            }
        }, executor);
    }

    private static String handle(CoordClient client, String line) throws Exception {
        if (line.equals("ping")) {
            return "pong";
        }
        if (line.equals("session")) {
            CoordSession s = client.session();
            return "session " + s.idHex() + " " + s.state();
        }
        if (line.startsWith("ephemeral ")) {
            String path = line.substring("ephemeral ".length());
            client.curator().create().creatingParentContainersIfNeeded().withMode(CreateMode.EPHEMERAL).forPath(path);
            return "created " + path;
        }
        if (line.equals("events")) {
            return "events " + String.join(",", EVENTS);
        }
        if (line.equals("clock")) {
            return "clock " + System.currentTimeMillis() + " " + System.nanoTime();
        }
        if (line.startsWith("wait ")) {
            // one timed monitor wait, as a recipe's bounded wait makes one; how long it really lasted
            long ms = Long.parseLong(line.substring("wait ".length()));
            Object monitor = new Object();
            long start = System.nanoTime();
            synchronized (monitor) {
                monitor.wait(ms);
            }
            return "waited " + (System.nanoTime() - start) / 1_000_000;
        }
        if (line.equals("exit")) {
            return null;
        }
        return "error unknown command '" + line + "'";
    }
}
