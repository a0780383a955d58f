package io.coord.chaos;

import io.coord.config.ConfigChange;
import io.coord.config.ConfigKey;
import io.coord.config.ConfigListener;
import io.coord.config.ConfigOptions;
import io.coord.config.ConfigRejection;
import io.coord.config.LiveConfig;
import io.coord.config.Versioned;
import java.time.Duration;

/**
 * Worker side of the config scenario: one {@link LiveConfig} reader of {@link ConfigSetting#KEY}
 * that reports every value it applies and every update it refuses.
 * <pre>
 * W: APPLIED &lt;version&gt; &lt;revision&gt; &lt;seq&gt; &lt;pad length&gt; &lt;origin&gt;   (first the initial value, then each change)
 * W: REJECTED &lt;version&gt; &lt;reason&gt;
 * C: exit
 * </pre>
 * The listener runs on the thread that applied the change, so the reports come in the order the
 * reader applied them. Argument 0, {@code validating} or {@code unvalidated}: the control's
 * readers watch the key without its validator and with a size limit far above the oversize value.
 */
final class ConfigReader implements WorkerLogic {
    @Override
    public void run(WorkerContext ctx) throws InterruptedException {
        WorkerIo io = ctx.io();
        boolean validating = !"unvalidated".equals(ctx.arg(0));
        ConfigOptions options = ConfigOptions.builder().instanceId(ctx.name())
                .maxValueBytes(validating ? ConfigSetting.MAX_BYTES : ConfigSetting.MAX_BYTES * 64).build();
        ConfigKey<ConfigSetting> key = validating ? ConfigSetting.KEY : ConfigSetting.UNVALIDATED_KEY;
        try (LiveConfig<ConfigSetting> live = LiveConfig.watch(ctx.client(), key, options)) {
            // The first value may come to the listener or be there before it was added: report it exactly
            // once either way, under one lock, so a report never goes out of the order of applying.
            Object order = new Object();
            boolean[] reported = new boolean[1];
            live.addListener(new ConfigListener<>() {
                @Override
                public void onChange(ConfigChange<ConfigSetting> change) {
                    synchronized (order) {
                        io.send(applied(change.current()));
                        reported[0] = true;
                    }
                }

                @Override
                public void onRejected(ConfigRejection rejection) {
                    io.send("REJECTED " + rejection.version() + " " + rejection.reason());
                }
            }, Runnable::run);
            live.awaitInitialized(Duration.ofSeconds(30));
            synchronized (order) {
                if (!reported[0]) {
                    io.send(applied(live.current()));
                    reported[0] = true;
                }
            }
            while (true) {
                String cmd = io.next(Duration.ofHours(24));
                if (cmd.equals("exit")) {
                    return;
                }
                io.send("ERROR unknown command " + cmd);
            }
        }
    }

    private static String applied(Versioned<ConfigSetting> v) {
        ConfigSetting s = v.value();
        return "APPLIED " + v.version() + " " + v.revision() + " " + s.seq() + " " + (s.pad() == null ? 0 : s.pad().length()) + " "
                + v.origin();
    }
}
