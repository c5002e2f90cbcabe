//! 上饶打炸 (dazha): being written.
