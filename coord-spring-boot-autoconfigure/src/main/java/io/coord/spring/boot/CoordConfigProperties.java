package io.coord.spring.boot;

import java.nio.file.Path;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The {@code coord.config.*} properties of {@link CoordConfig @CoordConfig} beans.
 *
 * @param initTimeout    {@code coord.config.init-timeout}: how long a config bean waits at startup
 *                       for its key's first value (default 10s); startup fails after it, naming the key
 * @param instanceId     {@code coord.config.instance-id}: this instance's name in config reports and
 *                       canaries; default {@code spring.application.name}-less {@code <hostname>-<pid>}
 *                       (give a stable one, a pod name, for stable canary membership)
 * @param reportApplied  {@code coord.config.report-applied}: whether this instance reports the version
 *                       it applied ({@code coord config who}); true unless set
 * @param snapshotDir    {@code coord.config.snapshot-dir}: where each config bean keeps the last value
 *                       it applied ({@code {dir}/{app}/{key}.json}, written while connected). When set,
 *                       the application starts while ZooKeeper is unreachable: the {@code CoordClient}
 *                       bean does not wait for a session and config beans start from their snapshot
 *                       (origin {@code SNAPSHOT}, stale) until the ensemble answers. Unset (the
 *                       default): startup with ZooKeeper unreachable fails
 */
@ConfigurationProperties("coord.config")
public record CoordConfigProperties(@DefaultValue("10s") Duration initTimeout, String instanceId,
                                    @DefaultValue("true") boolean reportApplied, Path snapshotDir) {
    /** The property that lets the application start from snapshots while ZooKeeper is unreachable. */
    static final String SNAPSHOT_DIR = "coord.config.snapshot-dir";
}
