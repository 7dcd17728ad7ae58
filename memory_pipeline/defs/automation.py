"""Assets that follow their upstream: the indexes after `observations`/`sessions`, `proposals`
after `reflections`, in every partition (a backfill of observations re-indexes the days it
touched); and assets whose code version changed (a prompt edit, another model) run again over
the recent days. One automation sensor, on by default, evaluates both; its evaluations are what
the UI shows on each asset's Automation tab."""

from datetime import timedelta

import dagster as dg

# eager() handles only the latest day; history (imports, backfills) must follow too.
FOLLOW_UPSTREAM = dg.AutomationCondition.eager().without(
    dg.AutomationCondition.in_latest_time_window()).with_label("follows its upstream, every day")

NEW_CODE_DAYS = 7  # the days a reflection reads: older days stay as they are until `ingest` or a backfill

# The asset's code version changed since the sensor's last tick (the prompt's hash and the model are
# in it: pipeline.code_version), and this partition was materialized before: run it again, once.
NEW_CODE_VERSION = (
    dg.AutomationCondition.in_latest_time_window(timedelta(days=NEW_CODE_DAYS))
    # dagster types since_last_handled's self as AutomationCondition[AssetKey | AssetCheckKey], which an
    # asset's condition (AutomationCondition[AssetKey]) cannot be: its own annotation is too narrow
    & dg.AutomationCondition.code_version_changed().since_last_handled()  # type: ignore[misc,operator]
    & ~dg.AutomationCondition.missing()
    & ~dg.AutomationCondition.in_progress()
).with_label(f"new code version: runs again over the last {NEW_CODE_DAYS} days")

FOLLOW_UPSTREAM_OR_NEW_CODE = (FOLLOW_UPSTREAM | NEW_CODE_VERSION).with_label(
    "follows its upstream, or runs again after a new code version")


def automation_defs() -> dg.Definitions:
    sensor = dg.AutomationConditionSensorDefinition(
        "follow_upstream_sensor", target=dg.AssetSelection.all(), default_status=dg.DefaultSensorStatus.RUNNING,
        minimum_interval_seconds=60,
        description="Materializes the indexes after their upstream day changed, stages proposals after a "
        "reflection changed, and runs observations, the indexes and reflections again over the last "
        f"{NEW_CODE_DAYS} days after their code version changed (a prompt edit or another model).")
    return dg.Definitions(sensors=[sensor])
