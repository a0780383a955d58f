package io.coord;

import java.time.Duration;

/**
 * The child JVM of {@link Slf4jGenerationsIT}: a service that connects to the ZooKeeper at
 * {@code args[0]} asking for a session longer than the server allows, so Coord logs its WARN about
 * the clamped timeout, then closes and exits. Its classpath holds only one SLF4J generation.
 */
public final class Slf4jWarningChild {
    private Slf4jWarningChild() {
    }

    public static void main(String[] args) throws Exception {
        CoordSettings settings = CoordSettings.builder().connectString(args[0]).namespace("slf4j")
                .sessionTimeout(Duration.ofSeconds(30)).connectionTimeout(Duration.ofSeconds(30)).build();
        try (CoordClient client = CoordClient.connect(settings)) {
            System.out.println("connected; negotiated " + client.negotiatedSessionTimeout().toMillis() + " ms");
        }
    }
}
