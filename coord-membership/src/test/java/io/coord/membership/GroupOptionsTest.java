package io.coord.membership;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.Codec;
import io.coord.ConfigurationException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class GroupOptionsTest {
    record Meta(String host) {
    }

    @Test
    void defaultsAreTheDocumentedOnes() {
        GroupOptions<Meta> o = GroupOptions.of(Meta.class);
        assertEquals(GroupOptions.DEFAULT_MAX_METADATA_BYTES, o.maxMetadataBytes());
        assertEquals(GroupOptions.DEFAULT_FLAP_WINDOW, o.flapWindow());
        assertEquals(GroupOptions.DEFAULT_MAX_MEMBERS, o.maxMembers());
        assertTrue(o.rejoin());
    }

    @Test
    void aSettingMayBeSetOnlyOnce() {
        var b = GroupOptions.builder(Meta.class).maxMembers(5);
        ConfigurationException e = assertThrows(ConfigurationException.class, () -> b.maxMembers(6));
        assertTrue(e.getMessage().contains("maxMembers"), e.getMessage());
    }

    @Test
    void aCodecLimitAndMaxMetadataBytesTogetherAreAConflictNamingBoth() {
        var b = GroupOptions.builder(Codec.json(Meta.class).withLimit(1000)).maxMetadataBytes(2000);
        ConfigurationException e = assertThrows(ConfigurationException.class, b::build);
        assertTrue(e.getMessage().contains("1000") && e.getMessage().contains("maxMetadataBytes 2000")
                || e.getMessage().contains("maxMetadataBytes is 2000"), e.getMessage());
    }

    @Test
    void badValuesFailWhenSetNamingTheValue() {
        assertThrows(ConfigurationException.class, () -> GroupOptions.builder(Meta.class).flapWindow(Duration.ZERO));
        assertThrows(ConfigurationException.class, () -> GroupOptions.builder(Meta.class).maxMembers(0));
        ConfigurationException e = assertThrows(ConfigurationException.class,
                () -> GroupOptions.builder(Meta.class).maxMetadataBytes(2_000_000));
        assertTrue(e.getMessage().contains("2000000"), e.getMessage());
    }

    @Test
    void toBuilderDerivesAVariant() {
        GroupOptions<Meta> o = GroupOptions.builder(Meta.class).maxMetadataBytes(100).rejoin(false).build();
        GroupOptions<Meta> v = o.toBuilder().maxMetadataBytes(200).build();
        assertEquals(200, v.maxMetadataBytes());
        assertEquals(false, v.rejoin());
        assertEquals(100, o.maxMetadataBytes());
    }
}
