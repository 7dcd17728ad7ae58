"""The ledger: a day's facts as typed events, the weekly maintenance, the recall pack."""
