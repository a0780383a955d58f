package io.coord.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.Test;

/** The reader's decisions without a server: reads given as (data, stat) in any order. */
class ConfigStateTest {
    record Limits(int max) {
    }

    private static final ConfigKey<Limits> KEY = ConfigKey.of("app", "limits", Limits.class)
            .withValidator(l -> l.max() > 0 ? List.of() : List.of("max must be > 0"));

    private static Stat stat(int version, long mzxid) {
        Stat s = new Stat();
        s.setVersion(version);
        s.setMzxid(mzxid);
        s.setMtime(1_000);
        return s;
    }

    private static byte[] json(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static ConfigState<Limits> state(ConfigKey<Limits> key, String instance) {
        return new ConfigState<>(key, ConfigOptions.builder().instanceId(instance).build());
    }

    @Test
    void aBadValueIsRefusedTheLastGoodStaysAndAnOlderGoodOneReadLateIsIgnored() {
        ConfigState<Limits> s = state(KEY, "i");
        NodeTrack node = s.track("/config/app/limits");
        assertEquals(new Limits(1), s.onPresent(node, json("{\"max\":1}"), stat(0, 10)).applied().value());
        ConfigState.Outcome<Limits> bad = s.onPresent(node, json("{\"max\":0}"), stat(1, 11));
        assertNull(bad.applied());
        assertEquals("validation", bad.rejection().reason());
        assertEquals(1, bad.rejection().version());
        assertNull(s.onPresent(node, json("{\"max\":0}"), stat(1, 11)).rejection(), "the same bad version is refused once");
        ConfigState.Outcome<Limits> late = s.onPresent(node, json("{\"max\":1}"), stat(0, 10));
        assertNull(late.applied(), "a stale read changes nothing");
        assertEquals(new Limits(7), s.onPresent(node, json("{\"max\":7}"), stat(2, 12)).applied().value());
    }

    @Test
    void aDeletedKeyFallsBackToTheDefaultOnlyWhenTheParentConfirmsTheDelete() {
        ConfigState<Limits> s = state(KEY.withDefault(new Limits(5)), "i");
        NodeTrack node = s.track("/config/app/limits");
        s.onPresent(node, json("{\"max\":1}"), stat(0, 10));
        assertNull(s.onAbsent(node, 9).applied(), "a server that has not seen the delete");
        Versioned<Limits> back = s.onAbsent(node, 20).applied();
        assertNotNull(back);
        assertEquals(Versioned.Origin.DEFAULT, back.origin());
        assertEquals(new Limits(5), back.value());
    }

    @Test
    void aCanaryAppliesOnlyInsideItsPercentageAndItsEndReturnsToTheReleasedValue() {
        String inside = null;
        String outside = null;
        for (int i = 0; inside == null || outside == null; i++) {
            if (CanaryRule.inCanary("id-" + i, 20)) {
                inside = inside == null ? "id-" + i : inside;
            } else {
                outside = outside == null ? "id-" + i : outside;
            }
        }
        for (String id : List.of(inside, outside)) {
            ConfigState<Limits> s = state(KEY, id);
            s.onPresent(s.track("/config/app/limits"), json("{\"max\":1}"), stat(3, 10));
            NodeTrack canary = s.track("/config/app/.canary/limits");
            ConfigState.Outcome<Limits> o = s.onPresent(canary, new ConfigLayout.Envelope(20, json("{\"max\":9}")).encode(), stat(0, 11));
            if (id.equals(inside)) {
                assertEquals(Versioned.Origin.CANARY, o.applied().origin());
                assertEquals(new Limits(9), o.applied().value());
                Versioned<Limits> end = s.onAbsent(canary, 12).applied();
                assertEquals(Versioned.Origin.LIVE, end.origin());
                assertEquals(3, end.version());
            } else {
                assertNull(o.applied(), "outside the canary nothing changes");
                assertNull(o.rejection());
            }
        }
    }

    @Test
    void aCanaryTheInstanceWouldApplyIsCheckedLikeAnyValue() {
        ConfigState<Limits> s = state(KEY, "anyone");
        s.onPresent(s.track("/config/app/limits"), json("{\"max\":1}"), stat(0, 10));
        ConfigState.Outcome<Limits> o = s.onPresent(s.track("/config/app/.canary/limits"),
                new ConfigLayout.Envelope(100, json("{\"max\":-1}")).encode(), stat(0, 11));
        assertNull(o.applied());
        assertTrue(o.rejection().path().endsWith("/.canary/limits") && o.rejection().reason().equals("validation"), o.rejection().toString());
    }
}
