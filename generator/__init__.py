"""aclnn-opgen: spec-driven generator for Huawei Ascend CANN aclnn operators."""

__version__ = "0.1.0"
