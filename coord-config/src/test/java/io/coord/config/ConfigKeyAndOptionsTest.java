package io.coord.config;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.CodecException;
import io.coord.ConfigurationException;
import io.coord.CoordPath;
import io.coord.InvalidNameException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class ConfigKeyAndOptionsTest {
    record Limits(int max, String mode) {
    }

    record App(Limits limits, String banner) {
    }

    static final ConfigKey.Validator<Limits> POSITIVE = l -> l.max() > 0 ? List.of() : List.of("max must be > 0, got " + l.max());

    @Test
    void aKeyNamesItsNodeAndRefusesNamesCoordReserves() {
        assertEquals(CoordPath.of("/config/orders/limits"), ConfigKey.of("orders", "limits", Limits.class).path());
        InvalidNameException dot = assertThrows(InvalidNameException.class, () -> ConfigKey.of("orders", ".history", Limits.class));
        assertTrue(dot.getMessage().contains(".history"), dot.getMessage());
        assertThrows(InvalidNameException.class, () -> ConfigKey.of("orders", "a/b", Limits.class));
        assertThrows(InvalidNameException.class, () -> ConfigKey.of("", "k", Limits.class));
    }

    @Test
    void aDefaultMustPassTheValidatorWhicheverIsGivenFirst() {
        ConfigKey<Limits> key = ConfigKey.of("orders", "limits", Limits.class);
        ConfigValidationException e = assertThrows(ConfigValidationException.class,
                () -> key.withValidator(POSITIVE).withDefault(new Limits(0, "x")));
        assertEquals(List.of("max must be > 0, got 0"), e.problems());
        assertTrue(e.getMessage().contains("/config/orders/limits"), e.getMessage());
        assertThrows(ConfigValidationException.class, () -> key.withDefault(new Limits(-1, "x")).withValidator(POSITIVE));
        assertEquals(new Limits(5, "a"), key.withValidator(POSITIVE).withDefault(new Limits(5, "a")).defaultValue());
    }

    @Test
    void aThrowingValidatorIsAProblemNotACrash() {
        ConfigKey<Limits> key = ConfigKey.of("orders", "limits", Limits.class).withValidator(l -> {
            throw new IllegalStateException("boom");
        });
        ConfigValidationException e = assertThrows(ConfigValidationException.class, () -> key.validate("/p", new Limits(1, "a")));
        assertTrue(e.getMessage().contains("boom"), e.getMessage());
    }

    @Test
    void aWholeAppKeyBindsEachPropertyToAKeyAndCannotBeWrittenAsOne() {
        ConfigKey<App> app = ConfigKey.wholeApp("orders", App.class);
        assertEquals(CoordPath.of("/config/orders"), app.path());
        assertEquals(List.of("limits", "banner"), app.keys());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> app.requireSingle("put"));
        assertTrue(e.getMessage().contains("[limits, banner]"), e.getMessage());
    }

    @Test
    void optionsFailEarlyNamingTheSetting() {
        assertThrows(ConfigurationException.class, () -> ConfigOptions.builder().historyDepth(0).build());
        ConfigurationException twice = assertThrows(ConfigurationException.class,
                () -> ConfigOptions.builder().historyDepth(3).historyDepth(4));
        assertTrue(twice.getMessage().contains("historyDepth"), twice.getMessage());
        ConfigurationException big = assertThrows(ConfigurationException.class,
                () -> ConfigOptions.builder().maxValueBytes(1_000_000).build());
        assertTrue(big.getMessage().contains("1000000"), big.getMessage());
        ConfigurationException under = assertThrows(ConfigurationException.class,
                () -> ConfigOptions.builder().reportsRoot("/config/reports").build());
        assertTrue(under.getMessage().contains("/config/reports"), under.getMessage());
        assertThrows(InvalidNameException.class, () -> ConfigOptions.builder().instanceId("a/b"));
        ConfigOptions o = ConfigOptions.builder().historyDepth(3).fallbackAfter(Duration.ZERO).build();
        assertEquals(3, o.toBuilder().build().historyDepth());
        assertEquals(7, o.toBuilder().historyDepth(7).build().historyDepth(), "a derived builder may set each setting once more");
        CoordPath.validateName(ConfigOptions.defaults().instanceId());
    }

    @Test
    void historyNamesSortByVersionAndForeignNamesAreIgnored() {
        assertEquals("v-0000000042", ConfigLayout.historyName(42));
        assertEquals(OptionalLong.of(42), ConfigLayout.historyVersion("v-0000000042"));
        assertEquals(OptionalLong.empty(), ConfigLayout.historyVersion("v-42"));
        assertEquals(OptionalLong.empty(), ConfigLayout.historyVersion("notes"));
        assertEquals(List.of("v-0000000002", "v-0000000010"),
                ConfigLayout.sortedHistory(List.of("v-0000000010", "junk", "v-0000000002")));
    }

    @Test
    void aCanaryEnvelopeRoundTripsAndAMalformedOneNamesItsPath() {
        byte[] value = "{\"max\":3,\"mode\":\"fast\"}".getBytes(StandardCharsets.UTF_8);
        ConfigLayout.Envelope e = new ConfigLayout.Envelope(12.5, value);
        CoordPath path = ConfigLayout.canary("orders", "limits");
        ConfigLayout.Envelope back = ConfigLayout.Envelope.decode(path, e.encode());
        assertEquals(12.5, back.percent());
        assertArrayEquals(value, back.value());
        CodecException bad = assertThrows(CodecException.class,
                () -> ConfigLayout.Envelope.decode(path, "{\"percent\":10}".getBytes(StandardCharsets.UTF_8)));
        assertTrue(bad.getMessage().contains(path.value()), bad.getMessage());
        assertThrows(CodecException.class,
                () -> ConfigLayout.Envelope.decode(path, "{\"percent\":0,\"value\":1}".getBytes(StandardCharsets.UTF_8)));
    }
}
