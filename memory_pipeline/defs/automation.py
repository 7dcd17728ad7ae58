"""Assets that follow their upstream: the indexes after `observations`/`sessions`, `proposals`
after `reflections`, in every partition (a backfill of observations re-indexes the days it
touched), evaluated by one automation sensor that is on by default."""

import dagster as dg

# eager() handles only the latest day; history (imports, backfills) must follow too.
FOLLOW_UPSTREAM = dg.AutomationCondition.eager().without(
    dg.AutomationCondition.in_latest_time_window()).with_label("follows its upstream, every day")


def automation_defs() -> dg.Definitions:
    sensor = dg.AutomationConditionSensorDefinition(
        "follow_upstream_sensor", target=dg.AssetSelection.all(), default_status=dg.DefaultSensorStatus.RUNNING,
        minimum_interval_seconds=60,
        description="Materializes the indexes after their upstream day changed and stages proposals after a "
        "reflection changed (assets with the 'follows its upstream' condition).")
    return dg.Definitions(sensors=[sensor])
