//! 扯旋 (chexuan): being written.
