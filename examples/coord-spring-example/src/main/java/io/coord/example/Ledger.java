package io.coord.example;

import io.coord.fence.JdbcFenceGuard;
import io.coord.spring.boot.CoordConfigChangedEvent;
import io.coord.spring.boot.CoordConfigValue;
import io.coord.spring.boot.CoordJob;
import io.coord.spring.boot.LeaderOnly;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.event.EventListener;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * Posts the fee to a ledger table, on the leader only. Each posting and its fence check are one
 * transaction: a deposed leader's token is below the highest one the table has seen, so its
 * posting is rolled back, never written.
 */
@Component
public class Ledger {
    private static final Logger LOG = LoggerFactory.getLogger(Ledger.class);

    private final DataSource dataSource;
    private final JdbcFenceGuard fence;
    private final CoordConfigValue<Pricing> pricing;

    public Ledger(DataSource dataSource, JdbcFenceGuard fence, CoordConfigValue<Pricing> pricing) throws SQLException {
        this.dataSource = dataSource;
        this.fence = fence;
        this.pricing = pricing;
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
            s.execute(fence.createTableSql());
            s.execute("CREATE TABLE IF NOT EXISTS ledger (id IDENTITY PRIMARY KEY, currency VARCHAR(3) NOT NULL,"
                    + " fee_cents INT NOT NULL, token BIGINT NOT NULL)");
        }
    }

    @Scheduled(fixedDelayString = "${example.post-every:1s}")
    @LeaderOnly(election = "ledger")
    void post() throws SQLException {
        Pricing now = pricing.get(); // the last good value, read at each use
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            if (!fence.admit(c, "ledger", CoordJob.token())) {
                c.rollback(); // a newer leader wrote already: this instance was deposed
                return;
            }
            try (PreparedStatement insert = c.prepareStatement("INSERT INTO ledger (currency, fee_cents, token) VALUES (?, ?, ?)")) {
                insert.setString(1, now.currency());
                insert.setInt(2, now.feeCents());
                insert.setLong(3, CoordJob.token().value());
                insert.executeUpdate();
            }
            c.commit();
        }
    }

    @EventListener
    void pricingChanged(CoordConfigChangedEvent<Pricing> change) {
        LOG.info("pricing v{}: {} -> {}", change.version(), change.oldValue(), change.newValue());
    }
}
