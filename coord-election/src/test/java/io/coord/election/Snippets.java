package io.coord.election;

import io.coord.CoordClient;
import io.coord.CoordSettings;
import io.coord.Registration;
import io.coord.fence.FenceGuard;
import io.coord.fence.InMemoryFenceGuard;
import java.time.Duration;
import java.util.Map;

/** The README section's snippets, so that they keep compiling (not run). */
final class Snippets {
    private Snippets() {
    }

    static void leaderTask() throws InterruptedException {
        try (CoordClient client = CoordClient.connect(CoordSettings.builder().connectString("127.0.0.1:2181").build());
             Election election = Election.open(client, "billing", ElectionOptions.builder()
                     .participantId("billing-7")
                     .metadata(Map.of("url", "http://10.0.0.7:8080"))
                     .requeue(true)
                     .build())) {
            FenceGuard fence = new InMemoryFenceGuard();
            Registration r = election.lead(leadership -> {
                while (true) {
                    leadership.checkValid();
                    fence.enforce("invoices", leadership.epoch());
                    runOneBatch();
                }
            });
            r.close();
        }
    }

    static void campaign(Election election) throws InterruptedException {
        Leadership l = election.campaign(Duration.ofSeconds(30));
        l.resign();
    }

    private static void runOneBatch() throws InterruptedException {
        Thread.sleep(100);
    }
}
