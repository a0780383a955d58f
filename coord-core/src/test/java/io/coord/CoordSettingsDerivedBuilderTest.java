package io.coord;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Regression: {@link CoordSettings#toBuilder()} copies the <em>derived</em> requestTimeout (which defaults to
 * the session timeout) as if it had been set, so lowering the session timeout on a derived builder
 * fails with "requestTimeout PT4S is longer than sessionTimeout PT2S" although nobody chose a
 * request timeout.
 */
class CoordSettingsDerivedBuilderTest {
    @Test
    void aDerivedBuilderCanLowerTheSessionTimeoutWhenNoRequestTimeoutWasChosen() {
        CoordSettings base = CoordSettings.builder().connectString("127.0.0.1:2181").sessionTimeout(Duration.ofSeconds(4)).build();
        CoordSettings shorter = base.toBuilder().sessionTimeout(Duration.ofSeconds(2)).build();
        assertEquals(Duration.ofSeconds(2), shorter.requestTimeout(), "the request timeout follows the session timeout");
    }
}
