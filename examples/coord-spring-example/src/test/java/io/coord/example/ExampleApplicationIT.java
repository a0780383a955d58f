package io.coord.example;

import static org.assertj.core.api.Assertions.assertThat;

import io.coord.CoordClient;
import io.coord.config.ConfigKey;
import io.coord.config.ConfigOptions;
import io.coord.config.ConfigStore;
import io.coord.spring.boot.CoordConfigValue;
import io.coord.test.Awaits;
import io.coord.test.ZooKeeperExtension;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.ResolvableType;

/** The example service, booted as it ships against an embedded ZooKeeper, with its config changed live. */
class ExampleApplicationIT {
    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.single();

    /** The key as an operator's tool writes it: without the service's Bean Validation. */
    private static final ConfigKey<Pricing> PRICING = ConfigKey.of("shop", "pricing", Pricing.class);
    private static final Duration BOUND = Duration.ofSeconds(20);

    record Row(String currency, int feeCents, long token) {
    }

    @Test
    void theServicePicksUpAConfigChangeLiveAndKeepsItsValueOnABadOne() throws Exception {
        CoordClient operator = zk.newClient();
        ConfigStore store = ConfigStore.open(operator, ConfigOptions.defaults());
        store.put(PRICING, new Pricing("EUR", 25));

        try (ConfigurableApplicationContext app = new SpringApplicationBuilder(ExampleApplication.class).run(
                // Command-line arguments, as an operator would start it: they override application.properties.
                "--coord.connect-string=" + zk.connectString(), "--coord.namespace=" + zk.namespace(),
                "--coord.session-timeout=4s", "--coord.connection-timeout=" + Awaits.scaled(Duration.ofSeconds(10)).toMillis() + "ms",
                "--example.db-url=jdbc:h2:mem:" + zk.namespace() + ";DB_CLOSE_DELAY=-1", "--example.post-every=100ms")) {
            DataSource db = app.getBean(DataSource.class);
            CoordConfigValue<Pricing> pricing = pricingBean(app);
            assertThat(pricing.get()).isEqualTo(new Pricing("EUR", 25));
            Awaits.until("the leader's first postings", BOUND, () -> rows(db).size() >= 2);
            assertThat(rows(db)).allMatch(r -> r.currency().equals("EUR") && r.feeCents() == 25);

            // A live change: the bean and what the job writes follow, without a restart.
            store.put(PRICING, new Pricing("USD", 40));
            Awaits.until("the bean to show USD", BOUND, () -> pricing.get().currency().equals("USD"));
            int before = rows(db).size();
            Awaits.until("a posting at the new price", BOUND,
                    () -> rows(db).stream().skip(before).anyMatch(r -> r.currency().equals("USD") && r.feeCents() == 40));

            // A bad change (a negative fee, refused by the service's @Min(0)) is not applied.
            long bad = store.put(PRICING, new Pricing("USD", -5));
            Awaits.until("the refusal", BOUND, () -> pricing.lastRejection().filter(r -> r.version() == bad).isPresent());
            int after = rows(db).size();
            Awaits.until("postings after the refusal", BOUND, () -> rows(db).size() >= after + 2);
            assertThat(pricing.get()).isEqualTo(new Pricing("USD", 40));
            assertThat(rows(db)).noneMatch(r -> r.feeCents() < 0);

            // Every posting passed the fence with the leadership's token, the highest the table saw.
            List<Row> rows = rows(db);
            assertThat(rows).extracting(Row::token).containsOnly(rows.get(0).token());
            assertThat(fenceToken(db)).isEqualTo(rows.get(0).token());
        }
    }

    @SuppressWarnings("unchecked")
    private static CoordConfigValue<Pricing> pricingBean(ConfigurableApplicationContext app) {
        return (CoordConfigValue<Pricing>) app.getBeanProvider(
                ResolvableType.forClassWithGenerics(CoordConfigValue.class, Pricing.class)).getObject();
    }

    private static List<Row> rows(DataSource db) {
        List<Row> rows = new ArrayList<>();
        try (Connection c = db.getConnection(); Statement s = c.createStatement();
             ResultSet r = s.executeQuery("SELECT currency, fee_cents, token FROM ledger ORDER BY id")) {
            while (r.next()) {
                rows.add(new Row(r.getString(1), r.getInt(2), r.getLong(3)));
            }
        } catch (SQLException e) {
            throw new AssertionError("could not read the ledger", e);
        }
        return rows;
    }

    private static long fenceToken(DataSource db) throws SQLException {
        try (Connection c = db.getConnection(); Statement s = c.createStatement();
             ResultSet r = s.executeQuery("SELECT token FROM coord_fence WHERE resource = 'ledger'")) {
            assertThat(r.next()).as("the fence row").isTrue();
            return r.getLong(1);
        }
    }
}
