# barriers
BAR_SYNC          6.3 all  bar.sync 0;
