package io.coord.chaos;

import io.coord.config.ConfigKey;
import java.util.List;

/**
 * The value the config scenario publishes: a sequence number the controller chose (so a reader's
 * report names exactly which write it applied) and padding (so an oversize value can be written).
 * Valid when {@code seq > 0}; the readers and the writer share {@link #KEY} and its validator.
 */
public record ConfigSetting(long seq, String pad) {
    /** Largest value accepted, in bytes, by the writer's store and the readers alike. */
    static final int MAX_BYTES = 1024;

    static final ConfigKey<ConfigSetting> KEY = ConfigKey.of("chaos", "setting", ConfigSetting.class)
            .withValidator(s -> s.seq() > 0 ? List.of() : List.of("seq must be > 0, got " + s.seq()));

    /** The same key without its validator: what the control's readers watch. */
    static final ConfigKey<ConfigSetting> UNVALIDATED_KEY = ConfigKey.of("chaos", "setting", ConfigSetting.class);
}
