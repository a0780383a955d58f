package io.coord;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Bad-input rows 8–10 and the builder's fail-early rules: refused at build time, before any connection. */
class CoordSettingsTest {

    @ParameterizedTest
    @ValueSource(strings = {"/app", "app/", "", "a//b", "a/../b"})
    void row8MalformedNamespaceIsAConfigurationError(String namespace) {
        ConfigurationException e = assertThrows(ConfigurationException.class,
                () -> CoordSettings.builder().connectString("127.0.0.1:2181").namespace(namespace));
        assertTrue(e.getMessage().contains("namespace \"" + namespace + "\""), "names the namespace: " + e.getMessage());
    }

    @ParameterizedTest
    @ValueSource(strings = {"", " ", "localhost", "localhost:", ":2181", "host:abc", "host:0", "host:70000",
            "a:1,,b:2", "a:1/chroot/", "a:1/chroot//x"})
    void row9MalformedConnectStringIsAConfigurationErrorNamingIt(String connect) {
        ConfigurationException e = assertThrows(ConfigurationException.class,
                () -> CoordSettings.builder().connectString(connect));
        String named = connect.isBlank() ? "connectString is empty" : "connectString \"" + connect + "\"";
        assertTrue(e.getMessage().contains(named), "names the connect string: " + e.getMessage());
    }

    @Test
    void row9GoodConnectStringsWithChrootAreAccepted() {
        CoordSettings s = CoordSettings.builder().connectString("a:2181,b:2182/apps/coord").build();
        assertEquals("a:2181,b:2182/apps/coord", s.connectString());
    }

    @Test
    void row10NonPositiveTimeoutsAreRefusedNamingSettingAndValue() {
        assertRefused("sessionTimeout must be > 0, got PT0S", () -> CoordSettings.builder().sessionTimeout(Duration.ZERO));
        assertRefused("sessionTimeout must be > 0, got PT-1S", () -> CoordSettings.builder().sessionTimeout(Duration.ofSeconds(-1)));
        assertRefused("connectionTimeout must be > 0, got PT0S", () -> CoordSettings.builder().connectionTimeout(Duration.ZERO));
        assertRefused("requestTimeout must be > 0, got PT-0.005S", () -> CoordSettings.builder().requestTimeout(Duration.ofMillis(-5)));
        assertRefused("sessionTimeout must be > 0, got null", () -> CoordSettings.builder().sessionTimeout(null));
    }

    private static void assertRefused(String message, org.junit.jupiter.api.function.Executable bad) {
        ConfigurationException e = assertThrows(ConfigurationException.class, bad);
        assertTrue(e.getMessage().contains(message), e.getMessage());
    }

    @Test
    void theTickerIsTheSystemsUnlessATestSetsOneAndAVariantKeepsIt() {
        CoordSettings base = CoordSettings.builder().connectString("127.0.0.1:2181").build();
        long before = System.nanoTime();
        long read = base.ticker().getAsLong();
        long after = System.nanoTime();
        assertTrue(before <= read && read <= after, "the default reads System.nanoTime: " + before + " <= " + read + " <= " + after);
        assertEquals(base, CoordSettings.builder().connectString("127.0.0.1:2181").build(), "settings built alike stay equal");
        java.util.function.LongSupplier stepped = () -> 42L;
        CoordSettings withTicker = base.toBuilder().ticker(stepped).build();
        assertSame(stepped, withTicker.ticker());
        assertSame(stepped, withTicker.toBuilder().sessionTimeout(Duration.ofSeconds(5)).build().ticker(), "a variant keeps it");
        NullPointerException e = assertThrows(NullPointerException.class, () -> CoordSettings.builder().ticker(null));
        assertTrue(e.getMessage().contains("ticker"), e.getMessage());
    }

    @Test
    void aSettingSetTwiceIsRefusedNamingIt() {
        ConfigurationException e = assertThrows(ConfigurationException.class,
                () -> CoordSettings.builder().sessionTimeout(Duration.ofSeconds(5)).sessionTimeout(Duration.ofSeconds(6)));
        assertTrue(e.getMessage().contains("sessionTimeout"), e.getMessage());
    }

    @Test
    void contradictingSettingsFailAtBuildNamingBoth() {
        ConfigurationException e = assertThrows(ConfigurationException.class, () -> CoordSettings.builder()
                .connectString("127.0.0.1:2181").sessionTimeout(Duration.ofSeconds(5)).requestTimeout(Duration.ofSeconds(10)).build());
        assertTrue(e.getMessage().contains("requestTimeout") && e.getMessage().contains("sessionTimeout"), e.getMessage());
        assertThrows(ConfigurationException.class, () -> CoordSettings.builder().build());
    }

    @Test
    void defaultsAreTheDocumentedOnes() {
        CoordSettings s = CoordSettings.builder().connectString("127.0.0.1:2181").build();
        assertEquals(Duration.ofSeconds(30), s.sessionTimeout());
        assertEquals(Duration.ofSeconds(15), s.connectionTimeout());
        assertEquals(s.sessionTimeout(), s.requestTimeout());
        assertEquals(RetrySettings.DEFAULT, s.retry());
        assertEquals(CoordSettings.DEFAULT_MAX_VALUE_BYTES, s.maxValueBytes());
    }

    @Test
    void toBuilderDerivesAVariantWithoutTouchingTheOriginal() {
        CoordSettings base = CoordSettings.builder().connectString("127.0.0.1:2181").namespace("app").build();
        CoordSettings variant = base.toBuilder().build();
        assertEquals(base, variant);
        assertEquals("app", variant.namespace());
    }

    @Test
    void secretsNeverAppearInToString() {
        CoordSettings s = CoordSettings.builder().connectString("127.0.0.1:2181")
                .credentials(Credentials.digest("alice", "s3cr3t-pw")).build();
        assertFalse(s.toString().contains("s3cr3t-pw"), s.toString());
        assertTrue(s.toString().contains("digest:alice"), s.toString());
    }

    @Test
    void maxValueBytesAboveJuteMaxBufferIsRefused() {
        assertThrows(ConfigurationException.class, () -> CoordSettings.builder().connectString("127.0.0.1:2181")
                .maxValueBytes(2_000_000).build());
    }
}
