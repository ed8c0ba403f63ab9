// A CommonJS module: its top-level `this` is module.exports; strict like the script.
module.exports = {
  topLevelThisIsExports: this === module.exports,
  plainCallThis: typeof (function () {
    return this;
  })(),
};
