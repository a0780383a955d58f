package io.coord.election;

import io.coord.CoordClient;
import io.coord.CoordSettings;
import io.coord.LockLostException;
import io.coord.Registration;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A candidate in its own JVM, so a test can kill it with SIGKILL. Driven over stdin
 * ({@code resign}, {@code quit}); reports on stdout: {@code READY}, {@code ACTING <epoch>},
 * {@code WROTE <version> <epoch>}, {@code STOPPED <epoch>}.
 *
 * <p>Arguments: connectString namespace election participantId sessionTimeoutMs.
 */
public final class ChildCandidate {
    private ChildCandidate() {
    }

    public static void main(String[] args) throws Exception {
        String connect = args[0];
        String namespace = args[1];
        String name = args[2];
        String id = args[3];
        Duration session = Duration.ofMillis(Long.parseLong(args[4]));
        AtomicReference<Leadership> current = new AtomicReference<>();
        try (CoordClient client = CoordClient.connect(CoordSettings.builder().connectString(connect).namespace(namespace)
                .sessionTimeout(session).connectionTimeout(Duration.ofSeconds(20)).build()); // a loaded machine starts JVMs slowly
             Election election = Election.open(client, name, ElectionOptions.builder().participantId(id).requeue(true).build())) {
            Registration r = election.lead(l -> {
                current.set(l);
                long epoch = l.epoch().value();
                say("ACTING " + epoch);
                try {
                    while (true) {
                        l.checkValid();
                        int version = FencedRegister.write(client, l);
                        say("WROTE " + version + " " + epoch);
                        Thread.sleep(20);
                    }
                } catch (LockLostException e) {
                    say("FENCED " + epoch);
                } catch (InterruptedException e) {
                    throw e;
                } catch (io.coord.StaleTokenException e) {
                    say((Invariants.valid(l) ? "ERROR " + epoch + " refused while still valid: " : "FENCED " + epoch + " ")
                            + e.getMessage());
                } catch (io.coord.CoordException | org.apache.zookeeper.KeeperException e) {
                    say("CUT " + epoch + " " + e);
                } catch (Exception e) {
                    say("ERROR " + epoch + " " + e);
                } finally {
                    say("STOPPED " + epoch);
                }
            });
            say("READY");
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            String line;
            while ((line = in.readLine()) != null && !line.equals("quit")) {
                if (line.equals("resign")) {
                    Leadership l = current.get();
                    if (l != null) {
                        l.resign();
                    }
                }
            }
            r.close();
        }
    }

    private static synchronized void say(String line) {
        System.out.println(line);
        System.out.flush();
    }
}
