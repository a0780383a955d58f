package io.coord.membership;

import io.coord.CoordClient;
import io.coord.CoordSettings;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * A member in its own JVM, so a test can kill it with -9. Arguments: connect string, namespace,
 * group, member id, session timeout in ms. Prints {@code JOINED <session hex> <negotiated ms>},
 * then waits for stdin to close.
 */
public final class ChildMember {
    public record Meta(String host) {
    }

    private ChildMember() {
    }

    public static void main(String[] args) throws Exception {
        CoordSettings settings = CoordSettings.builder().connectString(args[0]).namespace(args[1])
                .sessionTimeout(Duration.ofMillis(Long.parseLong(args[4]))).connectionTimeout(Duration.ofSeconds(60)).build();
        try (CoordClient client = CoordClient.connect(settings);
             Group<Meta> group = Group.open(client, args[2], Meta.class);
             Membership<Meta> m = group.join(args[3], new Meta("child"))) {
            System.out.println("JOINED " + m.session().idHex() + " " + client.negotiatedSessionTimeout().toMillis());
            System.out.flush();
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            while (in.readLine() != null) {
                // wait until the parent closes stdin (or kills us)
            }
        }
    }
}
