package io.coord.naming;

import io.coord.CoordClient;
import io.coord.CoordSettings;
import java.time.Duration;

/**
 * A service process for the crash tests: registers one instance, prints {@code registered}, then
 * waits to be killed. Arguments: connect string, namespace, service, instance id.
 */
public final class AnnounceChild {
    private AnnounceChild() {
    }

    public static void main(String[] args) throws Exception {
        CoordClient client = CoordClient.connect(CoordSettings.builder().connectString(args[0]).namespace(args[1])
                .sessionTimeout(Duration.ofSeconds(4)).connectionTimeout(Duration.ofSeconds(4)).build());
        Discovery discovery = Discovery.open(client);
        discovery.register(Endpoint.builder(args[2], args[3]).address("127.0.0.1").port(8080).build());
        System.out.println("registered");
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE); // until SIGKILL
    }
}
